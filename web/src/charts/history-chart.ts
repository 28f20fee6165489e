// The History page's small multiples: one panel per kernel of one machine, policy and arm, the
// figure of each run (x: the run's number in the plan's history, the same in every panel; a tick
// at the median on a vertical segment for its within-run interval, red when samples failed), the
// trailing band, flagged changes ringed in red, and environment changes as labelled vertical
// rules. Each panel is a plot of its own with its own y range: one axis shared by every kernel
// put a kernel at 0.07-0.12x under the lowest tick of one at 5x. A click on a run opens its Run
// page.
import * as Plot from '@observablehq/plot';
import { trailingBand } from '../../../analysis/history/trailing-band.ts';
import type { EnvironmentChange, HistoryView } from '../../../analysis/history/history-types.ts';
import { h } from '../dom.ts';
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
  // Runs before firstShown are there only as the first trailing windows (a range was chosen).
  const first = view.firstShown;
  for (const s of view.series) {
    for (const p of s.points.filter((p) => p.run >= first)) dots.push({ kernel: s.kernel, run: p.run, runId: view.runs[p.run]?.runId ?? '', median: p.median, lo: p.lo, hi: p.hi, failed: p.failed });
    for (const c of s.changes.filter((c) => c.at >= first)) {
      const at = s.points.find((p) => p.run === c.at);
      if (at) rings.push({ kernel: s.kernel, run: c.at, median: at.median, label: `${s.kernel}: ${((c.ratio - 1) * 100).toFixed(1)}% [${((c.lo - 1) * 100).toFixed(1)}%, ${((c.hi - 1) * 100).toFixed(1)}%] from ${view.runs[c.at]?.runId ?? '?'}${c.environment.length > 0 ? `; ${envLabel(c.environment)} changed there` : ''}; ${c.status}` });
    }
    for (const b of trailingBand(s.points, s.changes, view.settings.window, view.settings.minWindow)) if (b.run >= first) bands.push({ kernel: s.kernel, ...b });
  }
  const rules: EnvRule[] = [];
  (view.environmentChanges[machine] ?? []).forEach((changes, run) => {
    if (changes.length > 0 && run >= first) rules.push({ run, label: envLabel(changes) });
  });
  view.runs.forEach((r, run) => {
    if (r.planChanged && run >= first && !rules.some((x) => x.run === run)) rules.push({ run, label: 'plan' });
  });
  const kernels = [...new Set(view.series.map((s) => s.kernel))];
  const last = Math.max(0, view.runs.length - 1);
  // Run numbers (1 for the oldest shown), as many as fit: dates repeat when runs share a day.
  const ticks = Math.max(2, Math.min(view.runs.length - first, Math.floor((width - 170) / 45)));
  const panels = h('div', { class: 'history-panels' });
  kernels.forEach((kernel, k) => {
    const mine = dots.filter((d) => d.kernel === kernel);
    const values = [...mine.flatMap((d) => [d.lo, d.hi]), ...bands.filter((b) => b.kernel === kernel).flatMap((b) => [b.lo, b.hi])].filter((v) => v > 0 && Number.isFinite(v));
    const lo = values.length > 0 ? Math.min(...values) : 1;
    const hi = values.length > 0 ? Math.max(...values) : 1;
    const pad = (hi - lo) * 0.08 || hi * 0.02 || 0.01;
    const top = k === 0;
    const lastPanel = k === kernels.length - 1;
    const digits = hi - lo < 0.05 ? 3 : 2;
    const figure = cspSafe(
      Plot.plot({
        width,
        height: 96 + (top ? 16 : 0) + (lastPanel ? 36 : 0),
        marginTop: top ? 24 : 8,
        marginBottom: lastPanel ? 40 : 8,
        marginLeft: 60,
        marginRight: 110,
        ariaLabel: `history of ${kernel}`,
        x: { domain: [first - 0.5, Math.max(first, last) + 0.5], label: lastPanel ? 'run (1: the oldest shown)' : null, axis: lastPanel ? 'bottom' : null, ticks, tickFormat: (i: number) => (Number.isInteger(i) ? String(i - first + 1) : '') },
        y: { domain: [Math.max(lo - pad, lo / 2), hi + pad], label: null, grid: true, ticks: 3, tickFormat: (x: number) => x.toFixed(digits) },
        marks: [
          Plot.areaY(bands.filter((b) => b.kernel === kernel), { x: 'run', y1: 'lo', y2: 'hi', fill: '#c9d7ea', curve: 'step', className: 'trailing-band' }),
          Plot.ruleX(rules, { x: 'run', stroke: '#b5651d', strokeDasharray: '3,3', className: 'env-change' }),
          top ? Plot.text(rules, { x: 'run', text: 'label', frameAnchor: 'top', dy: -14, dx: 3, textAnchor: 'start', fill: '#b5651d', fontSize: 10, className: 'env-change-label' }) : null,
          Plot.line(runMarks(mine.filter((d) => d.failed === 0)), { x: 'x', y: 'y', stroke: '#4269d0', strokeWidth: 1.5, className: 'run-marks' }),
          Plot.line(runMarks(mine.filter((d) => d.failed > 0)), { x: 'x', y: 'y', stroke: '#d62728', strokeWidth: 1.5, className: 'failed-run-marks' }),
          Plot.dot(rings.filter((r) => r.kernel === kernel), { x: 'run', y: 'median', r: 6, stroke: '#d62728', strokeWidth: 2, fill: 'none', title: 'label', className: 'flagged-change' }),
          Plot.text([kernel], { frameAnchor: 'right', dx: 8, textAnchor: 'start', text: (t: string) => t, fontSize: 11, className: 'panel-name' }),
        ],
      }),
    );
    linkRuns(figure, view);
    panels.append(figure);
  });
  return panels;
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
