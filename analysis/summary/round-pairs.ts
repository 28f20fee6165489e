// From validated samples to paired rounds: the per-round value of an arm (the median of its
// repeats) and, for each (kernel, arm), the rounds in which native was measured too. Every
// figure in a summary or comparison is computed from these pairs.
import { NATIVE_ARM, ARM_NAMES } from '../../shared/arms.ts';
import type { SampleRecord } from '../../shared/records.ts';
import { medianOf } from '../statistics/quantile.ts';
import type { LineSample } from '../raw/raw-types.ts';
import type { Problem } from './summary-types.ts';

/** One sample reduced to the values of its round. */
export interface RoundValue {
  line: number;
  sample: SampleRecord;
  /** Median over the sample's repeats of wall time, nanoseconds. */
  wallNs: number;
  /** Median over the sample's repeats of process CPU time, microseconds. */
  cpuUs: number;
}

export interface PairedRound {
  round: number;
  native: RoundValue;
  arm: RoundValue;
}

export interface PairedGroup {
  kernel: string;
  arm: string;
  /** Paired rounds in ascending round order. */
  rounds: PairedRound[];
}

export interface Pairing {
  groups: PairedGroup[];
  problems: Problem[];
}

export function roundValue(entry: LineSample): RoundValue {
  const { record } = entry;
  return {
    line: entry.line,
    sample: record,
    wallNs: medianOf(record.repeats.map((r) => r.wallNs), `repeat wall times (line ${entry.line})`),
    cpuUs: medianOf(record.repeats.map((r) => r.cpuUs), `repeat CPU times (line ${entry.line})`),
  };
}

/**
 * Groups samples by (kernel, arm) and pairs each with native's sample of the same kernel and
 * round. A second sample for one (kernel, arm, round) loses to the one earlier in the file,
 * whatever its `seq` (an appended copy must never replace what was measured first), and is
 * reported naming both lines; an arm sample whose round has no
 * native sample is reported and left out. `kernelOrder` fixes the order of the groups
 * (kernels not in it follow alphabetically); arms follow the order of the 17 arms.
 */
export function pairRounds(samples: readonly LineSample[], kernelOrder: readonly string[] = []): Pairing {
  const problems: Problem[] = [];
  // kernel -> arm -> round -> sample
  const byKey = new Map<string, Map<string, Map<number, LineSample>>>();
  const ordered = [...samples].sort((a, b) => a.line - b.line);
  for (const entry of ordered) {
    const { kernel, arm, round } = entry.record;
    const arms = byKey.get(kernel) ?? new Map<string, Map<number, LineSample>>();
    byKey.set(kernel, arms);
    const rounds = arms.get(arm) ?? new Map<number, LineSample>();
    arms.set(arm, rounds);
    const first = rounds.get(round);
    if (first) {
      problems.push({
        line: entry.line,
        kind: 'duplicate-sample',
        message: `line ${entry.line}: a second sample for ${kernel} ${arm} round ${round} (the first is line ${first.line}); ignored`,
      });
      continue;
    }
    rounds.set(round, entry);
  }

  const groups: PairedGroup[] = [];
  for (const kernel of orderKernels([...byKey.keys()], kernelOrder)) {
    const arms = byKey.get(kernel) as Map<string, Map<number, LineSample>>;
    const native = arms.get(NATIVE_ARM) ?? new Map<number, LineSample>();
    const nativeValues = new Map([...native].map(([round, entry]) => [round, roundValue(entry)]));
    for (const arm of [...arms.keys()].sort((a, b) => ARM_NAMES.indexOf(a) - ARM_NAMES.indexOf(b))) {
      const rounds: PairedRound[] = [];
      const entries = [...(arms.get(arm) as Map<number, LineSample>).values()].sort((a, b) => a.record.round - b.record.round);
      for (const entry of entries) {
        const partner = nativeValues.get(entry.record.round);
        if (!partner) {
          problems.push({
            line: entry.line,
            kind: 'unpaired',
            message: `line ${entry.line}: ${kernel} ${arm} round ${entry.record.round} has no native sample in its round; left out of the ratios`,
          });
          continue;
        }
        rounds.push({ round: entry.record.round, native: partner, arm: arm === NATIVE_ARM ? partner : roundValue(entry) });
      }
      if (rounds.length > 0) groups.push({ kernel, arm, rounds });
    }
  }
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return { groups, problems };
}

function orderKernels(kernels: readonly string[], preferred: readonly string[]): string[] {
  const rank = new Map(preferred.map((k, i) => [k, i]));
  return [...kernels].sort((a, b) => {
    const ra = rank.get(a) ?? Number.POSITIVE_INFINITY;
    const rb = rank.get(b) ?? Number.POSITIVE_INFINITY;
    if (ra !== rb) return ra - rb;
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
