// Confirmation of flagged regressions (issue 33): a flag is `suspected` until the runs after it
// say whether its new level lasts. When the coordinator runs with --confirm-runs, those runs are
// confirmation runs it queues on the flagging machine at once (coordinator/runs/confirmation.ts),
// so a flag is settled within the hour instead of at the next scheduled runs; the rule that
// settles it is the detection's own (change-detection.ts, CONFIRMING_RUNS and CONFIRMING_SHARE),
// whichever runs they are.
import type { ChangeOutcome, ConfirmationStatus, DetectedChange, HistoryRun } from './history-types.ts';

/** A flag's status from what the detection found in the runs after it. */
export function confirmationStatus(outcome: ChangeOutcome): ConfirmationStatus {
  switch (outcome) {
    case 'lasting':
      return 'confirmed';
    case 'excursion':
      return 'refuted';
    case 'open':
      return 'suspected';
  }
}

/**
 * The confirmation runs of a change in a series: runs after the one that flagged it, queued to
 * confirm that run (a chain of them all name the run that started it), in which the series has a
 * figure (`hasRun`: the cell's machine took part).
 */
export function confirmationRunsOf(change: Pick<DetectedChange, 'detectedAt'>, runs: readonly HistoryRun[], hasRun: (run: number) => boolean): string[] {
  const flagging = runs[change.detectedAt]?.runId;
  if (flagging === undefined) return [];
  const found: string[] = [];
  for (let i = change.detectedAt + 1; i < runs.length; i++) {
    const run = runs[i] as HistoryRun;
    if (run.confirms === flagging && hasRun(i)) found.push(run.runId);
  }
  return found;
}
