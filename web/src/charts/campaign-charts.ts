// The Campaign page's charts. Runs chart: per cell (kernel rows, policy columns, machine panel
// rows), each run's median speedup with its within-run interval, run after run, over the
// across-run band as it stood after each run: the band narrowing run by run. Width chart: the
// widest cell's half-width after each run against the --until target.
import * as Plot from '@observablehq/plot';
import type { CampaignSummary } from '../../../shared/protocol/campaign.ts';
import { cspSafe } from './plot-figure.ts';

interface Point { machine: string; policy: string; kernel: string; run: number; median: number; lo: number | null; hi: number | null }
interface BandPoint { machine: string; policy: string; kernel: string; run: number; lo: number; hi: number }

export function campaignRunsChart(c: CampaignSummary, width: number): Element {
  const index = new Map(c.runs.map((r, i) => [r.runId, i + 1]));
  const points: Point[] = c.cells.flatMap((cell) => cell.perRun.map((r) => ({ machine: cell.machine, policy: cell.policy, kernel: cell.kernel, run: index.get(r.run) ?? 0, median: r.median, lo: r.lo, hi: r.hi })));
  const bands: BandPoint[] = c.bands.flatMap((b) => b.cells.map((cell) => ({ machine: cell.machine, policy: cell.policy, kernel: cell.kernel, run: b.runs, lo: cell.lo, hi: cell.hi })));
  const kernels = [...new Set(c.cells.map((cell) => cell.kernel))];
  // The scale follows the runs (and the latest band): an early band, from two runs, can be
  // orders of magnitude wide and is clipped rather than allowed to flatten every run.
  const latest = bands.filter((b) => b.run === c.bands.at(-1)?.runs);
  const values = [...points.flatMap((p) => [p.median, p.lo ?? p.median, p.hi ?? p.median]), ...latest.flatMap((b) => [b.lo, b.hi])].filter((v) => v > 0 && Number.isFinite(v));
  return cspSafe(
    Plot.plot({
      width,
      height: Math.max(220, 190 * new Set(c.cells.map((cell) => cell.machine)).size),
      marginLeft: 60,
      marginRight: 70,
      clip: true,
      ariaLabel: 'each run and the band across runs',
      x: { label: 'run', domain: [0.5, Math.max(c.runs.length, 1) + 0.5], ticks: c.runs.map((_, i) => i + 1), tickFormat: (d: number) => `${d}` },
      y: { type: 'log', domain: values.length > 0 ? [Math.min(...values) / 1.1, Math.max(...values) * 1.1] : [0.1, 10], label: 'speedup (band: 95% across runs so far)', grid: true, tickFormat: (v: number) => `${v}` },
      fx: { domain: [...new Set(c.cells.map((cell) => cell.policy))], label: null },
      fy: { domain: [...new Set(c.cells.map((cell) => cell.machine))], label: null },
      color: { domain: kernels, legend: true },
      marks: [
        Plot.areaY(bands, { x: 'run', y1: 'lo', y2: 'hi', z: 'kernel', fill: 'kernel', fillOpacity: 0.15, fx: 'policy', fy: 'machine', className: 'campaign-band' }),
        Plot.ruleX(points.filter((p) => p.lo !== null), { x: 'run', y1: 'lo', y2: 'hi', stroke: 'kernel', strokeOpacity: 0.6, fx: 'policy', fy: 'machine', className: 'campaign-whisker' }),
        Plot.dot(points, { x: 'run', y: 'median', fill: 'kernel', r: 2.5, fx: 'policy', fy: 'machine', className: 'campaign-dot', title: (p: Point) => `run ${p.run} ${p.kernel}: ${p.median.toFixed(2)}x${p.lo === null || p.hi === null ? '' : ` [${p.lo.toFixed(2)}-${p.hi.toFixed(2)}]`}` }),
      ],
    }),
  );
}

export function campaignWidthChart(c: CampaignSummary, width: number): Element {
  const data = c.bands.filter((b) => b.widest !== null).map((b) => ({ run: b.runs, widest: (b.widest as number) * 100 }));
  const target = c.rule.until === null ? [] : [c.rule.until * 100];
  return cspSafe(
    Plot.plot({
      width,
      height: 220,
      marginLeft: 80,
      ariaLabel: 'the widest cell after each run',
      x: { label: 'run', domain: [0.5, Math.max(c.runs.length, 1) + 0.5], ticks: c.runs.map((_, i) => i + 1), tickFormat: (d: number) => `${d}` },
      y: { type: 'log', label: 'widest cell, ± % of its centre', grid: true, tickFormat: (v: number) => `${v}` },
      marks: [
        Plot.ruleY(target, { stroke: '#3ca951', strokeDasharray: '4 3', className: 'campaign-target' }),
        // The dashed line says what it is: the --until target.
        Plot.text(target, { y: (t: number) => t, frameAnchor: 'right', text: (t: number) => `target ±${t}%`, textAnchor: 'end', dy: -6, fill: '#2a7a3a', fontSize: 11, className: 'campaign-target-label' }),
        Plot.line(data, { x: 'run', y: 'widest', stroke: '#4269d0' }),
        Plot.dot(data, { x: 'run', y: 'widest', fill: '#4269d0', r: 3, title: (d: { run: number; widest: number }) => `after run ${d.run}: ±${d.widest.toFixed(1)}%` }),
      ],
    }),
  );
}
