// A family's history run by run, as a coordinator with `--confirm-runs N` makes it: after each
// scheduled run the detection runs over everything so far (analysis/history/change-detection.ts)
// and, while a flag is suspected (outcome `open`) and fewer than N confirmation runs followed
// this scheduled run, one more run of the whole family is added at once (the coordinator's rule,
// coordinator/runs/confirmation.ts). For the history calibration bench's "confirmation by
// re-running" figures: when each flag was raised and when it was confirmed, counted in
// scheduled runs. Same model as synthetic-history.ts: ln(speedup) = ln 5 + a machine-wide run
// effect + the cell's own noise (+ cell 0's shift); each run's interval is a 7-round summary's.
import { detectChanges } from '../../analysis/history/change-detection.ts';
import { DEFAULT_DETECTION, type HistoryPoint } from '../../analysis/history/history-types.ts';
import { standardErrorsPerHalfWidth } from '../../analysis/statistics/bootstrap-interval-coverage.ts';
import type { Rng } from '../../shared/prng.ts';
import { normal } from './synthetic-raw.ts';

export interface ConfirmationScenario {
  /** Each cell's run-to-run sd of ln(speedup). */
  sds: readonly number[];
  commonSd: number;
  /** Scheduled runs. */
  slots: number;
  /** Confirmation runs allowed after each scheduled run (0: none, the history as scheduled). */
  confirmRuns: number;
  /** Cell 0's shift of ln(speedup) in scheduled run `slot`. */
  scheduled?: (slot: number) => number;
  /** Cell 0's shift in the confirmation runs that follow scheduled run `slot` (a wild run is not repeated; a step is). */
  confirming?: (slot: number) => number;
}

/** One flag: its cell, the scheduled run during which it was raised, and the one during which it was confirmed (null: never). */
export interface SimulatedFlag {
  cell: number;
  /** Index of the run (scheduled or confirmation) where its new level starts. */
  at: number;
  /** Scheduled run at which `at` was made (a confirmation run counts as its scheduled run's). */
  atSlot: number;
  raisedSlot: number;
  confirmedSlot: number | null;
  refuted: boolean;
}

export interface SimulatedHistory {
  flags: SimulatedFlag[];
  /** Confirmation runs made. */
  confirmationRuns: number;
}

export function simulateConfirmation(rng: Rng, s: ConfirmationScenario): SimulatedHistory {
  const z = standardErrorsPerHalfWidth(7) ?? 0;
  const points: HistoryPoint[][] = s.sds.map(() => []);
  const slotOf: number[] = [];
  const flags = new Map<string, SimulatedFlag>();
  let confirmationRuns = 0;
  const addRun = (slot: number, shift: number): void => {
    const run = slotOf.length;
    slotOf.push(slot);
    const common = s.commonSd * normal(rng);
    s.sds.forEach((sd, cell) => {
      const y = Math.log(5) + common + sd * normal(rng) + (cell === 0 ? shift : 0);
      const half = z * 0.6 * sd;
      points[cell]?.push({ run, median: Math.exp(y), lo: Math.exp(y - half), hi: Math.exp(y + half), rounds: 7, failed: 0 });
    });
  };
  /** Runs the detection over every run so far, records new flags and confirmations; whether a flag is still suspected. */
  const look = (slot: number): boolean => {
    let open = false;
    detectChanges(points, slotOf.length, DEFAULT_DETECTION).forEach((changes, cell) => {
      for (const c of changes) {
        const key = `${cell}:${c.at}`;
        let flag = flags.get(key);
        if (flag === undefined) {
          flag = { cell, at: c.at, atSlot: slotOf[c.at] as number, raisedSlot: slot, confirmedSlot: null, refuted: false };
          flags.set(key, flag);
        }
        if (c.outcome === 'lasting' && flag.confirmedSlot === null) flag.confirmedSlot = slot;
        flag.refuted = c.outcome === 'excursion';
        if (c.outcome === 'open') open = true;
      }
    });
    return open;
  };
  for (let slot = 0; slot < s.slots; slot++) {
    addRun(slot, s.scheduled?.(slot) ?? 0);
    // Before the minimum window nothing can be flagged: no detection to run.
    if (slot < DEFAULT_DETECTION.minWindow) continue;
    for (let attempt = 0; look(slot) && attempt < s.confirmRuns; attempt++) {
      addRun(slot, s.confirming?.(slot) ?? 0);
      confirmationRuns++;
    }
  }
  return { flags: [...flags.values()], confirmationRuns };
}
