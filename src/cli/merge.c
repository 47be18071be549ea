/* nodescope merge: add profiles together (or average them). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "profile/units.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

int cli_merge(int argc, char **argv)
{
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL, *to = NULL;
    int avg = 0;
    char to_help[512];
    snprintf(to_help, sizeof to_help, "output format when the extension does not say: %s", format_writer_names());
    const opt_t own[] = {
        OPT_STR("output", 'o', "FILE", "where to write (required)", &output),
        OPT_BOOL("avg", 0, "average instead of sum", &avg),
        OPT_STR("to", 0, "NAME", to_help, &to),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {own, in.opts, NULL};
    const opt_cmd_t cmd = {"merge",
                           "usage: nodescope merge [OPTIONS] A B... -o OUT\n"
                           "\n"
                           "Add the profiles' call trees (--avg: each weighs 1/N, the mean profile) and write\n"
                           "OUT in the format its extension names (.cpuprofile, .folded, .svg, ...). Timelines\n"
                           "of different recordings do not line up, so the result has none (a .cpuprofile gets\n"
                           "evenly spaced samples). Profiles whose weights have different units (samples,\n"
                           "perf's ns of cpu-clock, cycles, ...) are not added: that is an error.\n",
                           tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    char **files = argv + 1;
    const format_writer_t *w;
    int urc = cli_output_writer(&cmd, to, 1, output, &w);
    if (urc != EXIT_OK) return urc;
    if (n < 1) return opt_usage_error(&cmd, "no input");
    int rc = EXIT_FAIL;
    profile_t *sum = profile_new();
    for (int i = 0; i < n; i++) {
        profile_t *one = profile_new();
        if (cli_input_read(&in, files + i, 1, one) != 0) {
            profile_free(one);
            goto done;
        }
        /* never add ns of CPU to sample counts: the sum takes the first input's unit, the rest must match */
        if (i == 0) sum->weight_unit = strpool_cstr(sum->strings, profile_weight_unit(one));
        else if (profile_check_units("merge", files[0], sum, files[i], one) != 0) {
            profile_free(one);
            goto done;
        }
        profile_merge(sum, one, avg ? 1.0 / n : 1.0);
        profile_free(one);
    }
    sum->nsamples = 0; /* separate recordings' timelines do not line up */
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_write_profile(sum, output, w, &wo, files, n) == 0) rc = EXIT_OK;
done:
    cli_input_free(&in);
    profile_free(sum);
    return rc;
}
