// One arm of a report across its machines: per kernel and policy, how the machines' paired
// median speedups spread (median over machines, the lowest and highest with their machine),
// how many machines had it as their fastest policy, and the failed samples behind it. What the
// dashboard's Run page shows above a run of more machines than fit a page: a thousand machines'
// rows are paged, this stays a row per kernel.
import type { Report } from './report-types.ts';

export interface AcrossMachinesCell {
  kernel: string;
  policy: string;
  /** Machines with a paired median speedup for this kernel and policy. */
  machines: number;
  /** Median over those machines of each machine's paired median speedup (the middle two averaged when even). */
  median: number;
  lowest: { machine: string; speedup: number };
  highest: { machine: string; speedup: number };
  /** Machines on which this policy had the highest speedup of the kernel (ties count for each). */
  fastest: number;
  /** Samples behind these cells that failed a check, the arm's and native's, over the machines. */
  failures: number;
}

export interface AcrossMachines {
  arm: string;
  policies: string[];
  /** Kernels in the study's order: by the median over machines and policies of native's wall time per job, fastest first. */
  kernels: string[];
  /** Machines in the report. */
  machines: number;
  /** One per kernel and policy that has a figure on some machine, kernels in `kernels` order, policies in `policies` order. */
  cells: AcrossMachinesCell[];
}

/** The middle value of `xs` (the mean of the middle two for an even count); NaN for none. */
function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
}

export function acrossMachines(report: Report): AcrossMachines {
  interface Bucket { speedups: number[]; lowest: AcrossMachinesCell['lowest'] | null; highest: AcrossMachinesCell['highest'] | null; fastest: number; failures: number }
  const buckets = new Map<string, Bucket>();
  const nativeTimes = new Map<string, number[]>();
  for (const row of report.rows) {
    const speedups = row.cells.map((c) => (c === null ? Number.NEGATIVE_INFINITY : c.speedup.median));
    const top = Math.max(...speedups);
    row.cells.forEach((cell, i) => {
      if (cell === null) return;
      if (cell.nativeWallPerJobNs !== undefined) {
        let times = nativeTimes.get(row.kernel);
        if (times === undefined) nativeTimes.set(row.kernel, (times = []));
        times.push(cell.nativeWallPerJobNs);
      }
      const key = `${row.kernel}\u0000${report.policies[i] as string}`;
      let bucket = buckets.get(key);
      if (bucket === undefined) buckets.set(key, (bucket = { speedups: [], lowest: null, highest: null, fastest: 0, failures: 0 }));
      const speedup = cell.speedup.median;
      bucket.speedups.push(speedup);
      if (bucket.lowest === null || speedup < bucket.lowest.speedup) bucket.lowest = { machine: row.machine, speedup };
      if (bucket.highest === null || speedup > bucket.highest.speedup) bucket.highest = { machine: row.machine, speedup };
      if (speedup === top) bucket.fastest++;
      bucket.failures += cell.failures + cell.nativeFailures;
    });
  }
  const nativeMedian = new Map([...nativeTimes].map(([kernel, times]) => [kernel, median(times)]));
  const order = (k: string): number => nativeMedian.get(k) ?? Number.POSITIVE_INFINITY;
  const kernels = [...new Set(report.rows.map((r) => r.kernel))].sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
  const cells: AcrossMachinesCell[] = [];
  for (const kernel of kernels) {
    for (const policy of report.policies) {
      const bucket = buckets.get(`${kernel}\u0000${policy}`);
      if (bucket === undefined || bucket.lowest === null || bucket.highest === null) continue;
      cells.push({ kernel, policy, machines: bucket.speedups.length, median: median(bucket.speedups), lowest: bucket.lowest, highest: bucket.highest, fastest: bucket.fastest, failures: bucket.failures });
    }
  }
  return { arm: report.arm, policies: [...report.policies], kernels, machines: report.machines.length, cells };
}
