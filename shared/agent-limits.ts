// How long the coordinator keeps an agent it no longer hears from, and how many it lists. The
// coordinator applies them (coordinator/network/agent-registry.ts); the CLI names them in
// `benchfleet agents forget --help`. Both ends read them here, so the CLI need not load the
// coordinator to print two numbers.

/** An offline agent not heard from for this long is forgotten. */
export const FORGET_AFTER_DAYS = 90;

/** Most agents listed; beyond it the offline ones last heard from longest ago are forgotten. */
export const MAX_AGENTS = 256;
