// A record sink over a fresh data folder, with the lines of a small plan for each machine: the
// setup the record journal's tests and the durability tests share.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after } from 'node:test';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scheduleSamples } from '../../agent/harness/schedule.ts';
import { JOURNAL_DIR } from '../../coordinator/records/journal-entries.ts';
import { RecordSink } from '../../coordinator/records/record-sink.ts';
import type { LineExpectations } from '../../coordinator/records/record-lines.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { environmentLine, loadPlan, sampleLine } from './simulated-agent.ts';

const PLAN_TEXT = `${JSON.stringify(loadPlan(96).plan)}\n`;
export const PLAN_SHA256 = createHash('sha256').update(PLAN_TEXT).digest('hex');
export const PLAN = parsePlan(JSON.parse(PLAN_TEXT), kernelNames());

/** The first `count` lines of `machine`'s pages file under the tests' plan: its environment row, then samples. */
export function linesOf(machine: string, count: number): string[] {
  const slots = scheduleSamples({ ...PLAN, kernels: PLAN.kernels as string[], arms: PLAN.arms as string[] });
  return [environmentLine(machine, 'pages', PLAN_SHA256, PLAN), ...slots.slice(0, count - 1).map((slot, i) => sampleLine(slot, i + 1, PLAN.repeats, PLAN.jobs))];
}

export const expect = (machine: string): LineExpectations => ({ planSha256: PLAN_SHA256, machine, plan: PLAN });
export const rawPath = (dir: string, machine: string): string => join(dir, 'runs', 'r1', machine, 'pages.jsonl');
export const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

/**
 * The data folders startSink made, removed when the test file ends: after every test's own
 * hooks, which may still close a sink over one (a test's t.after would run before those).
 */
const made: string[] = [];
after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 }))));

/** A started sink over a new data folder with machine folders `machines`, and each machine's lines. */
export async function startSink(machines: readonly string[], count: number): Promise<{ dir: string; sink: RecordSink; lines: Map<string, string[]> }> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-journal-'));
  made.push(dir);
  for (const m of machines) await mkdir(join(dir, 'runs', 'r1', m), { recursive: true });
  const sink = new RecordSink();
  await sink.start(dir);
  return { dir, sink, lines: new Map(machines.map((m) => [m, linesOf(m, count)])) };
}

/** Send `lines` of `machine` in batches of `size`, each acknowledged before the next. */
export async function sendAll(sink: RecordSink, dir: string, machine: string, lines: readonly string[], size: number, from = 0): Promise<void> {
  for (; from < lines.length; from += size) {
    const result = await sink.append(rawPath(dir, machine), { runId: 'r1', policy: 'pages', fromSeq: from, lines: lines.slice(from, from + size) }, expect(machine));
    assert.equal(result.next, Math.min(lines.length, from + size));
  }
}

export async function segments(dir: string): Promise<string[]> {
  return (await readdir(join(dir, JOURNAL_DIR))).filter((name) => name.endsWith('.wal')).sort();
}
