// The History page's small multiples: one panel per kernel of one machine, policy and arm, the
// figure of each run (x: the run's place in the plan's history; a tick at the median on a
// vertical segment for its within-run interval, red when samples failed), the trailing band,
// flagged changes ringed in red, and environment changes as labelled vertical rules. A click on
// a run opens its Run page.
import * as Plot from '@observablehq/plot';
import { trailingBand } from '../../../analysis/history/trailing-band.ts';
import type { EnvironmentChange, HistoryView } from '../../../analysis/history/history-types.ts';
import { cspSafe } from './plot-figure.ts';

interface Dot { kernel: string; run: number; runId: string; median: number; lo: number; hi: number; failed: number }
interface Ring { kernel: string; run: number; median: number; label: string }
interface Band { kernel: string; run: number; lo: number; hi: number }
interface EnvRule { run: number; label: string }
/** A vertex of the runs' marks: NaN ends a segment (Plot breaks a line at an undefined value). */
interface Vertex { kernel: string; x: number; y: number }

/** Half the width of a run's median tick, in runs. */
const TICK = 0.35;

/**
 * Every run's interval (a vertical segment) and median (a short horizontal tick) in one path per
 * panel: 500 runs x 21 kernels as dots and rules would be 21,000 SVG elements for the browser to
 * lay out, as paths they are 21.
 */
function runMarks(dots: readonly Dot[]): Vertex[] {
  return dots.flatMap((d) => [
    { kernel: d.kernel, x: d.run, y: d.lo },
    { kernel: d.kernel, x: d.run, y: d.hi },
    { kernel: d.kernel, x: d.run, y: NaN },
    { kernel: d.kernel, x: d.run - TICK, y: d.median },
    { kernel: d.kernel, x: d.run + TICK, y: d.median },
    { kernel: d.kernel, x: d.run, y: NaN },
  ]);
}

/** The environment fields worth a rule's label, shortened. */
function envLabel(changes: readonly EnvironmentChange[]): string {
  const short = (v: string): string => (/^[0-9a-f]{64}$/.test(v) ? v.slice(0, 8) : v);
  return changes.map((c) => (c.field === 'node' || c.field === 'v8' ? `${c.field} ${short(c.to)}` : c.field.replace(/Sha256$/, ''))).join(', ');
}

export function historyChart(view: HistoryView, machine: string, width: number): Element {
  const dots: Dot[] = [];
  const rings: Ring[] = [];
  const bands: Band[] = [];
  for (const s of view.series) {
    for (const p of s.points) dots.push({ kernel: s.kernel, run: p.run, runId: view.runs[p.run]?.runId ?? '', median: p.median, lo: p.lo, hi: p.hi, failed: p.failed });
    for (const c of s.changes) {
      const at = s.points.find((p) => p.run === c.at);
      if (at) rings.push({ kernel: s.kernel, run: c.at, median: at.median, label: `${s.kernel}: ${((c.ratio - 1) * 100).toFixed(1)}% [${((c.lo - 1) * 100).toFixed(1)}%, ${((c.hi - 1) * 100).toFixed(1)}%] from ${view.runs[c.at]?.runId ?? '?'}${c.environment.length > 0 ? `; ${envLabel(c.environment)} changed there` : ''}` });
    }
    for (const b of trailingBand(s.points, s.changes, view.settings.window, view.settings.minWindow)) bands.push({ kernel: s.kernel, ...b });
  }
  const rules: EnvRule[] = [];
  (view.environmentChanges[machine] ?? []).forEach((changes, run) => {
    if (changes.length > 0) rules.push({ run, label: envLabel(changes) });
  });
  view.runs.forEach((r, run) => {
    if (r.planChanged && !rules.some((x) => x.run === run)) rules.push({ run, label: 'plan' });
  });
  const kernels = [...new Set(view.series.map((s) => s.kernel))];
  const values = dots.flatMap((d) => [d.lo, d.hi]).filter((v) => v > 0);
  const last = Math.max(0, view.runs.length - 1);
  const tick = (i: number): string => view.runs[i]?.createdAt.slice(5, 10) ?? '';
  const figure = cspSafe(
    Plot.plot({
      width,
      height: 40 + kernels.length * 110,
      marginLeft: 60,
      marginRight: 110,
      ariaLabel: 'history',
      x: { domain: [-0.5, last + 0.5], label: 'run (date created)', tickFormat: tick, ticks: Math.min(12, view.runs.length) },
      y: { domain: [Math.min(...values) / 1.02, Math.max(...values) * 1.02], label: 'speedup', grid: true, ticks: 3, tickFormat: (x: number) => x.toFixed(2) },
      fy: { domain: kernels, label: null },
      marks: [
        Plot.areaY(bands, { x: 'run', y1: 'lo', y2: 'hi', fy: 'kernel', z: 'kernel', fill: '#c9d7ea', curve: 'step', className: 'trailing-band' }),
        Plot.ruleX(rules, { x: 'run', stroke: '#b5651d', strokeDasharray: '3,3', className: 'env-change' }),
        Plot.text(rules, { x: 'run', text: 'label', frameAnchor: 'top', dy: -2, dx: 3, textAnchor: 'start', fill: '#b5651d', fontSize: 9, fy: () => kernels[0], className: 'env-change-label' }),
        Plot.line(runMarks(dots.filter((d) => d.failed === 0)), { x: 'x', y: 'y', z: 'kernel', fy: 'kernel', stroke: '#4269d0', strokeWidth: 1.5, className: 'run-marks' }),
        Plot.line(runMarks(dots.filter((d) => d.failed > 0)), { x: 'x', y: 'y', z: 'kernel', fy: 'kernel', stroke: '#d62728', strokeWidth: 1.5, className: 'failed-run-marks' }),
        Plot.dot(rings, { x: 'run', y: 'median', fy: 'kernel', r: 6, stroke: '#d62728', strokeWidth: 2, fill: 'none', title: 'label', className: 'flagged-change' }),
      ],
    }),
  );
  linkRuns(figure, view);
  return figure;
}

/** A click in the chart opens the Run page of the run under the pointer (x is the run's place: every panel shares it). */
function linkRuns(figure: ReturnType<typeof Plot.plot>, view: HistoryView): void {
  const x = figure.scale('x');
  figure.addEventListener('click', (event) => {
    if (!(event instanceof MouseEvent)) return;
    const box = figure.getBoundingClientRect();
    const run = view.runs[Math.round(Number(x?.invert?.(event.clientX - box.left)))];
    if (run) location.assign(`/runs/${encodeURIComponent(run.runId)}`);
  });
}
