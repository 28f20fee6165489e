// What `history --fail-on` fails on. `regression`: any change flagged at a shown run, whatever
// became of it (a refuted flag was still a bad run). `confirmed-regression`: only flags the runs
// after them confirmed (docs/statistics.md, "Confirmation by re-running"); a flag still
// suspected is pending, neither a pass nor a failure, so a CI job can wait for the
// coordinator's confirmation runs and ask again; a refuted flag passes.
import { regressions, type Regression } from './history-render.ts';
import type { HistoryView } from './history-types.ts';

export const FAIL_ON = ['regression', 'confirmed-regression'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export interface GateVerdict {
  /** The flags that trip the gate. */
  failing: Regression[];
  /** Suspected flags that would trip it once confirmed (only with `confirmed-regression`). */
  pending: Regression[];
}

export function historyGate(view: HistoryView, failOn: FailOn): GateVerdict {
  const found = regressions(view);
  if (failOn === 'regression') return { failing: found, pending: [] };
  return { failing: found.filter((r) => r.change.status === 'confirmed'), pending: found.filter((r) => r.change.status === 'suspected') };
}
