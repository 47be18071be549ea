/* perf script --inline: a native frame's inlined calls, from addr2line (one run per distinct
 * callchain line: the reader's line cache keys on the address when --inline is on). */
#include "formats/perf_inline.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void perf_addr2line(const char *pc, size_t pc_len, const char *mod, size_t mod_len, int with_context, buf_t *out)
{
    buf_t cmd = {0};
    buf_puts(&cmd, "addr2line -a 0x");
    buf_append(&cmd, pc, pc_len);
    buf_puts(&cmd, " -i -f -s -C -e '");
    for (size_t i = 0; i < mod_len; i++) {
        if (mod[i] == '\'') buf_puts(&cmd, "'\\''");
        else buf_putc(&cmd, mod[i]);
    }
    buf_puts(&cmd, "' 2>/dev/null");
    FILE *f = popen(cmd.data, "r");
    buf_free(&cmd);
    if (!f) return;
    /* Output: the address, then (function, file:line) pairs, innermost first. */
    char line[4096];
    char **items = NULL;
    size_t nitems = 0, cap = 0;
    int first = 1;
    while (fgets(line, sizeof line, f)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
        if (first) {
            first = 0;
            continue;
        }
        char *disc = strstr(line, " (discriminator ");
        if (disc) *disc = 0;
        XGROW(items, cap, nitems + 1);
        items[nitems++] = xstrdup(line);
    }
    pclose(f);
    int ok = nitems >= 2 && strcmp(items[0], "??") != 0;
    for (size_t k = nitems / 2; ok && k-- > 0;) {
        if (out->len) buf_putc(out, ';');
        for (const char *c = items[2 * k]; *c; c++) buf_putc(out, *c == ';' ? ':' : *c);
        if (with_context) {
            buf_putc(out, ':');
            buf_puts(out, items[2 * k + 1]);
        }
    }
    for (size_t i = 0; i < nitems; i++) free(items[i]);
    free(items);
}
