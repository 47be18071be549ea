/* `nodescope --version` pointed at a node (a live process, a core): which facts nodescope has for
 * it (postmortem/facts_report.c). */
#ifndef POSTMORTEM_FACTS_REPORT_H
#define POSTMORTEM_FACTS_REPORT_H

/* Exit status when V8 was read but its version is not in v8/layout.c's table of facts */
#define PM_FACTS_EXIT_UNKNOWN 3

/* nodescope --version [-p PID | CORE [--node BIN]] [--json]: argv[0] is "--version"; version is
 * nodescope's own. Parses its options, opens the target and its V8, prints the answer: 0 when all
 * is known, PM_FACTS_EXIT_UNKNOWN when V8 is newer (or older) than the table, 1 when the node
 * cannot be read or has no metadata, 2 a usage error. */
int pm_version_command(int argc, char **argv, const char *version);

#endif
