// How a report cell reads in the text and markdown tables: `4.80x / 1.05`, with
// `[lo-hi]` intervals on request (none from one round, which gives no interval at all),
// `!2 failed` when samples behind it failed their checks, and `-` when there is nothing to
// show. A failed cell is never a bare number.
import type { Interval } from '../statistics/interval.ts';
import type { ReportCell } from './report-types.ts';

const fixed = (x: number) => x.toFixed(2);
const range = (i: Interval) => ` [${fixed(i.lo)}-${fixed(i.hi)}]`;

export function cellText(cell: ReportCell | null, intervals: boolean): string {
  if (cell === null) return '-';
  const show = intervals && cell.rounds >= 2;
  const speedup = `${fixed(cell.speedup.median)}x${show ? range(cell.speedup) : ''}`;
  const cpu = cell.cpuRatio === null ? '-' : `${fixed(cell.cpuRatio.median)}${show ? range(cell.cpuRatio) : ''}`;
  const failed = cell.failures + cell.nativeFailures;
  return `${speedup} / ${cpu}${intervals && cell.rounds < 2 ? ' (1 round, no interval)' : ''}${failed > 0 ? ` !${failed} failed` : ''}`;
}
