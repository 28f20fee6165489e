// Confirmation of flagged regressions on a synthetic history with known truth: a 20% drop in one
// cell of four is flagged at once and stays suspected until the two runs after it have come;
// confirmation runs at the new level confirm it, runs back at the old level refute it, and
// `--fail-on confirmed-regression` fails, waits or passes accordingly while `--fail-on
// regression` fails on the flag whatever became of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildHistory, type HistoryInput } from '../../analysis/history/build-history.ts';
import { historyGate } from '../../analysis/history/history-gate.ts';
import { DEFAULT_DETECTION, type HistoryView } from '../../analysis/history/history-types.ts';

const KERNELS = ['kernel-a', 'kernel-b', 'kernel-c', 'kernel-d'];
const REGULAR = 10;

/**
 * Ten regular runs of four cells on one machine at a deterministic ±2% wobble; kernel-a drops to
 * 0.8x at run 10 (`flagged`); then `after`: each later run's kernel-a level and the run it
 * confirms (null: a regular run). The other cells never move.
 */
function input(after: readonly { level: number; confirms: string | null }[]): HistoryInput {
  const levels = [...Array.from({ length: REGULAR }, () => 1), 0.8, ...after.map((a) => a.level)];
  const runs = levels.map((_, i) => ({
    run_key: i + 1, run_id: `run-${String(i).padStart(2, '0')}`, plan_name: 'study', plan_sha256: 'a'.repeat(64),
    created_at: `2026-12-01T00:${String(i).padStart(2, '0')}:00.000Z`, confirms_run_id: i <= REGULAR ? null : (after[i - REGULAR - 1]?.confirms ?? null),
  }));
  const cells: HistoryInput['cells'][number][] = [];
  for (const [i, r] of runs.entries()) {
    KERNELS.forEach((kernel, k) => {
      const level = kernel === 'kernel-a' ? (levels[i] as number) : 1;
      const y = Math.log(5 * level) + 0.02 * Math.sin(1.7 * i + k);
      cells.push({ machine: 'ryzen', policy: 'pages', arm: 'taskpool-2-batched', kernel, run_key: r.run_key, speedup: Math.exp(y), speedup_lo: Math.exp(y - 0.02), speedup_hi: Math.exp(y + 0.02), rounds: 7, failed: 0 });
    });
  }
  return { plan: 'study', runs, firstShown: 0, machines: [], cells };
}

/** Per cell, its flags as [run where the change starts, status, confirmation runs]. */
function flags(view: HistoryView): [string, [string, string, string[]][]][] {
  return view.series.map((s) => [s.kernel, s.changes.map((c) => [view.runs[c.at]?.runId ?? '?', c.status, c.confirmationRuns])]);
}

const verdict = (view: HistoryView, failOn: 'regression' | 'confirmed-regression'): { failing: string[]; pending: string[] } => {
  const v = historyGate(view, failOn);
  return { failing: v.failing.map((r) => `${r.kernel}@${r.at}`), pending: v.pending.map((r) => `${r.kernel}@${r.at}`) };
};

test('a drop is suspected at the run that flags it, before any run after it has come', () => {
  const view = buildHistory(input([]), DEFAULT_DETECTION);
  assert.deepEqual(flags(view), [['kernel-a', [['run-10', 'suspected', []]]], ['kernel-b', []], ['kernel-c', []], ['kernel-d', []]]);
  assert.equal(view.runs.every((r) => r.confirms === null), true);
  assert.deepEqual(verdict(view, 'regression'), { failing: ['kernel-a@run-10'], pending: [] });
  assert.deepEqual(verdict(view, 'confirmed-regression'), { failing: [], pending: ['kernel-a@run-10'] });
});

test('one confirmation run is not enough: the flag stays suspected and names the run', () => {
  const view = buildHistory(input([{ level: 0.8, confirms: 'run-10' }]), DEFAULT_DETECTION);
  assert.deepEqual(flags(view), [['kernel-a', [['run-10', 'suspected', ['run-11']]]], ['kernel-b', []], ['kernel-c', []], ['kernel-d', []]]);
  assert.equal(view.runs[11]?.confirms, 'run-10');
});

test('confirmation runs that stay at the new level confirm the flag, and the confirmed gate fails', () => {
  const view = buildHistory(input([{ level: 0.8, confirms: 'run-10' }, { level: 0.8, confirms: 'run-10' }]), DEFAULT_DETECTION);
  assert.deepEqual(flags(view), [['kernel-a', [['run-10', 'confirmed', ['run-11', 'run-12']]]], ['kernel-b', []], ['kernel-c', []], ['kernel-d', []]]);
  assert.deepEqual(verdict(view, 'confirmed-regression'), { failing: ['kernel-a@run-10'], pending: [] });
  assert.deepEqual(verdict(view, 'regression'), { failing: ['kernel-a@run-10'], pending: [] });
});

test('confirmation runs back at the old level refute the flag: the confirmed gate passes, the plain one still fails', () => {
  const view = buildHistory(input([{ level: 1, confirms: 'run-10' }, { level: 1, confirms: 'run-10' }]), DEFAULT_DETECTION);
  assert.deepEqual(flags(view), [['kernel-a', [['run-10', 'refuted', ['run-11', 'run-12']]]], ['kernel-b', []], ['kernel-c', []], ['kernel-d', []]]);
  assert.deepEqual(verdict(view, 'confirmed-regression'), { failing: [], pending: [] });
  assert.deepEqual(verdict(view, 'regression'), { failing: ['kernel-a@run-10'], pending: [] });
});

test('regular runs settle a flag the same way; only runs queued for the flagging run are its confirmation runs', () => {
  // A regular run and a run queued to confirm another run come after the flag: the rule settles
  // it on them (the old level: refuted), and neither is listed as its confirmation run.
  const view = buildHistory(input([{ level: 1, confirms: null }, { level: 1, confirms: 'run-03' }]), DEFAULT_DETECTION);
  assert.deepEqual(flags(view), [['kernel-a', [['run-10', 'refuted', []]]], ['kernel-b', []], ['kernel-c', []], ['kernel-d', []]]);
});
