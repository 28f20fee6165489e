// The report's exports for other tools: Bencher Metric Format JSON (one benchmark per cell, the
// cell's median and interval as value and bounds), and every pool arm's report for the
// dashboard's arm selector and the HTML report; `report --arm all` exports them all at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { buildReport, renderReport, renderReports } from '../../analysis/report/report.ts';
import { reportsForEveryArm } from '../../analysis/report/report-arms.ts';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';
import { runCli } from '../helpers/run-cli.ts';

const ARMS = [NATIVE_ARM, 'workers-2-batched', 'taskpool-4-batched', 'taskpool-8-batched'];
const KERNELS = ['aes-cbc-decrypt', 'sha256', 'crc32'];

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bf-exports-'));
  await writeFile(join(dir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 3, machine: 'ryzen', policy: 'pages', kernels: KERNELS, arms: ARMS, rounds: 3, repeats: 2 })));
  await writeFile(join(dir, 'whole.jsonl'), toJsonl(syntheticRun({ seed: 4, machine: 'ryzen', policy: 'whole', kernels: KERNELS.slice(0, 2), arms: ARMS, rounds: 3, repeats: 2 })));
  return dir;
}

test('report --bmf gives one Bencher benchmark per cell with the cell\'s median and interval', async () => {
  const dir = await folder();
  try {
    const report = await buildReport([dir]);
    const bmf = JSON.parse(renderReport(report, 'bmf')) as Record<string, Record<string, { value: number; lower_value: number; upper_value: number }>>;
    // whole has two kernels, pages three: the missing (crc32, whole) cell is left out.
    assert.deepEqual(Object.keys(bmf).sort(), [
      'ryzen/pages/aes-cbc-decrypt/taskpool-8-batched',
      'ryzen/pages/crc32/taskpool-8-batched',
      'ryzen/pages/sha256/taskpool-8-batched',
      'ryzen/whole/aes-cbc-decrypt/taskpool-8-batched',
      'ryzen/whole/sha256/taskpool-8-batched',
    ]);
    const row = report.rows.find((r) => r.kernel === 'sha256');
    const cell = row?.cells[report.policies.indexOf('pages')];
    assert.ok(cell?.cpuRatio);
    assert.ok(cell.wallPerJobNs !== undefined && cell.nativeWallPerJobNs !== undefined);
    assert.deepEqual(bmf['ryzen/pages/sha256/taskpool-8-batched'], {
      speedup: { value: cell.speedup.median, lower_value: cell.speedup.lo, upper_value: cell.speedup.hi },
      'cpu-ratio': { value: cell.cpuRatio.median, lower_value: cell.cpuRatio.lo, upper_value: cell.cpuRatio.hi },
      latency: { value: cell.wallPerJobNs },
      'native-latency': { value: cell.nativeWallPerJobNs },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * A BMF document read as Bencher's `json` adapter reads it (its Bencher Metric Format: a JSON
 * object of benchmark names, each an object of measure slugs, each a metric with a finite
 * `value` and optional `lower_value` <= value <= `upper_value`, nothing else): the measures of
 * each benchmark, or an error naming what Bencher would refuse.
 */
function readAsBencher(text: string): Map<string, Map<string, { value: number; lower?: number; upper?: number }>> {
  const doc: unknown = JSON.parse(text);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('BMF: not a JSON object');
  const out = new Map<string, Map<string, { value: number; lower?: number; upper?: number }>>();
  for (const [name, measures] of Object.entries(doc)) {
    if (name === '') throw new Error('BMF: an empty benchmark name');
    if (typeof measures !== 'object' || measures === null || Array.isArray(measures)) throw new Error(`BMF: ${name} is not an object of measures`);
    const read = new Map<string, { value: number; lower?: number; upper?: number }>();
    for (const [slug, metric] of Object.entries(measures as Record<string, unknown>)) {
      if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) throw new Error(`BMF: ${name}: measure "${slug}" is not a slug`);
      const m = metric as Record<string, unknown>;
      const extra = Object.keys(m).filter((k) => !['value', 'lower_value', 'upper_value'].includes(k));
      if (extra.length > 0) throw new Error(`BMF: ${name}/${slug}: unknown fields ${extra.join(', ')}`);
      const num = (k: string): number | undefined => {
        const v = m[k];
        if (v === undefined) return undefined;
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`BMF: ${name}/${slug}.${k} is not a finite number`);
        return v;
      };
      const value = num('value');
      if (value === undefined) throw new Error(`BMF: ${name}/${slug} has no value`);
      const lower = num('lower_value');
      const upper = num('upper_value');
      if ((lower !== undefined && lower > value) || (upper !== undefined && upper < value)) throw new Error(`BMF: ${name}/${slug}: value outside its bounds`);
      read.set(slug, { value, ...(lower === undefined ? {} : { lower }), ...(upper === undefined ? {} : { upper }) });
    }
    out.set(name, read);
  }
  return out;
}

test('BMF carries the absolute times beside the ratios: a slowdown of native and the pools alike shows in latency, not in speedup', async (t) => {
  // The same machine before and after a V8 upgrade that makes every job twice as slow, native
  // and the pools alike: the speedup (5, as the synthetic runs are made) does not move.
  const before = await mkdtemp(join(tmpdir(), 'bf-bmf-before-'));
  const after = await mkdtemp(join(tmpdir(), 'bf-bmf-after-'));
  t.after(() => Promise.all([rm(before, { recursive: true, force: true }), rm(after, { recursive: true, force: true })]));
  const spec = { seed: 5, machine: 'ryzen', policy: 'pages' as const, kernels: ['sha256'], arms: ARMS, rounds: 5, repeats: 3, roundSd: 0, repeatSd: 0 };
  await writeFile(join(before, 'pages.jsonl'), toJsonl(syntheticRun({ ...spec, nativeNs: 10_000_000 })));
  await writeFile(join(after, 'pages.jsonl'), toJsonl(syntheticRun({ ...spec, nativeNs: 20_000_000 })));
  const name = 'ryzen/pages/sha256/taskpool-8-batched';
  const [old, now] = await Promise.all([before, after].map(async (dir) => readAsBencher(renderReport(await buildReport([dir]), 'bmf')).get(name)));
  assert.ok(old && now);
  assert.deepEqual([...old.keys()], ['speedup', 'cpu-ratio', 'latency', 'native-latency']);
  const value = (m: typeof old, slug: string): number => m.get(slug)?.value ?? Number.NaN;
  assert.ok(Math.abs(value(now, 'speedup') / value(old, 'speedup') - 1) < 1e-9, 'the speedup does not move');
  assert.ok(Math.abs(value(now, 'latency') / value(old, 'latency') - 2) < 1e-9, 'the arm\'s time per job doubles');
  assert.ok(Math.abs(value(now, 'native-latency') / value(old, 'native-latency') - 2) < 1e-9, 'native\'s time per job doubles');
  // Native's time over the arm's is the speedup (jobs per sample are the same for both).
  assert.ok(Math.abs(value(now, 'native-latency') / value(now, 'latency') / value(now, 'speedup') - 1) < 1e-9);
});

test('every pool arm gets its report, the default arm first, each as report --arm builds it', async () => {
  const dir = await folder();
  try {
    const reports = reportsForEveryArm(await loadResults([dir]));
    assert.deepEqual(reports.map((r) => r.arm), ['taskpool-8-batched', 'workers-2-batched', 'taskpool-4-batched']);
    assert.deepEqual(reports[1], await buildReport([dir], { arm: 'workers-2-batched' }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('report --arm all exports every arm in every format, each benchmark and row naming its arm; a bad --arm is a usage error', async () => {
  const dir = await folder();
  try {
    // The CLI for two formats and the refusal (a child each costs seconds on a loaded machine); the others in process.
    const [bmfOut, csvOut, bad] = await Promise.all([
      runCli(['report', dir, '--arm', 'all', '--bmf']),
      runCli(['report', dir, '--arm', 'all', '--csv']),
      runCli(['report', dir, '--bmf', '--arm', 'taskpool-8-batchd']),
    ]);
    const every = reportsForEveryArm(await loadResults([dir]));
    const arms = ['taskpool-8-batched', 'workers-2-batched', 'taskpool-4-batched'];
    assert.equal(bmfOut.code, 0, bmfOut.stderr);
    const bmf = JSON.parse(bmfOut.stdout) as Record<string, Record<string, { value: number }>>;
    // Per arm: pages has three kernels, whole two.
    assert.equal(Object.keys(bmf).length, 3 * 5);
    for (const arm of arms) assert.equal(Object.keys(bmf).filter((k) => k.endsWith(`/${arm}`)).length, 5, arm);
    for (const measures of Object.values(bmf)) assert.deepEqual(Object.keys(measures), ['speedup', 'cpu-ratio', 'latency', 'native-latency']);
    const single = await buildReport([dir], { arm: 'workers-2-batched' });
    assert.deepEqual(bmf['ryzen/pages/sha256/workers-2-batched'], (JSON.parse(renderReport(single, 'bmf')) as typeof bmf)['ryzen/pages/sha256/workers-2-batched']);

    assert.equal(csvOut.code, 0, csvOut.stderr);
    const lines = csvOut.stdout.trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('kernel,')).length, 1, 'one header');
    // Three kernel rows x two policies per arm, the missing (crc32, whole) cell as an empty row.
    assert.equal(lines.length, 1 + 3 * 6);
    for (const arm of arms) assert.equal(lines.filter((l) => l.split(',')[3] === arm).length, 6, arm);

    assert.deepEqual((JSON.parse(renderReports(every, 'json')) as { arm: string }[]).map((r) => r.arm), arms);
    assert.deepEqual(renderReports(every, 'text').match(/^Paired median speedup over native \/ CPU ratio for (\S+)$/gm)?.map((l) => l.split(' ').at(-1)), arms);

    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /^Error \[USAGE\]: --arm must be an arm or "all", got "taskpool-8-batchd" \(did you mean taskpool-8-batched\?\);/);
    assert.match(bad.stderr, /\nUsage: benchfleet report/);
    assert.equal(bad.stdout, '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('BMF of one round gives Bencher the value alone: no interval to bound it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-exports-'));
  try {
    await writeFile(join(dir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 5, machine: 'm2', policy: 'pages', kernels: ['sha256'], arms: ARMS, rounds: 1, repeats: 2 })));
    const bmf = JSON.parse(renderReport(await buildReport([dir]), 'bmf')) as Record<string, Record<string, object>>;
    assert.deepEqual(Object.keys(bmf['m2/pages/sha256/taskpool-8-batched']?.['speedup'] ?? {}), ['value']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the footer speaks of the rounds the report really has: 7 rounds are the 2nd to 6th smallest ratio (87.5%), 3 rounds the 1st to 3rd (75.0%)', async () => {
  for (const [rounds, words] of [[7, 'the 7 rounds of this report it is about the 2nd to 6th smallest per-round ratio, whose distribution-free coverage is 87.5%'], [3, 'the 3 rounds of this report it is about the 1st to 3rd smallest per-round ratio, whose distribution-free coverage is 75.0%']] as const) {
    const dir = await mkdtemp(join(tmpdir(), 'bf-exports-'));
    try {
      await writeFile(join(dir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 6, machine: 'm2', policy: 'pages', kernels: ['sha256'], arms: ARMS, rounds, repeats: 2 })));
      const footer = (await buildReport([dir])).footer.join('\n');
      assert.ok(footer.includes(`with ${words}`), footer);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});
