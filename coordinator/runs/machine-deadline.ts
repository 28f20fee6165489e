// The coordinator's default --machine-deadline, in a module of its own: the command's
// definition (its --help) reads it without loading the server.
/** Default --machine-deadline: long enough for a weekend, short enough that a dead machine is said to be dead. */
export const DEFAULT_MACHINE_DEADLINE_HOURS = 48;
