// The states of a run and of each machine in it, on their own so that the run and campaign
// messages (events.ts, campaign.ts) can both name them without importing each other.
/**
 * Where a machine of a run (and a run as a whole) stands. queued: waiting in the machine's queue
 * (first come, first served) until the machine works on no other run; assigned: plan sent, not yet accepted; running; delivering: every sample taken,
 * the last records on their way (for a run: every machine ended, summaries and report being
 * written); then completed, failed or cancelled, which never change again.
 */
export type LifecycleState = 'queued' | 'assigned' | 'running' | 'delivering' | 'completed' | 'failed' | 'cancelled';
