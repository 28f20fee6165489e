// The exit codes every command shares: 0 done, 1 an error (one line on stderr), 2 bad usage,
// 3 when a command's data trips the gate its --fail-on asked for, and 4 when the gate cannot
// decide yet (`history --fail-on confirmed-regression` with a regression still suspected: ask
// again once its confirmation runs are in). A CI job can tell "the benchmark found a problem"
// (3) from "the tool could not run" (1, 2) and from "not settled yet" (4). The codes of errors (1
// and 2) are decided by exitCodeOf in shared/errors.ts; the gate's is the commands' own.
export const EXIT_GATE = 3;
export const EXIT_PENDING = 4;
