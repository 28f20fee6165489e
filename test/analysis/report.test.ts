// The study's table from result folders: machines from environment rows, one column per
// policy, `speedup x / CPU ratio` cells with failures marked, notes for machines that differ,
// fresh summaries used and stale ones replaced, in markdown, text, CSV and JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { buildReport, buildReportFromResults, renderReport } from '../../analysis/report/report.ts';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { writeSummary } from '../../analysis/summary/summary-io.ts';
import type { Policy } from '../../shared/policies.ts';
import type { EnvironmentRecord, RawRecord, SampleRecord } from '../../shared/records.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';
import { chooseFormat } from '../../cli/commands/report.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';

const ARMS = [NATIVE_ARM, 'taskpool-4-batched', 'taskpool-8-batched'];
const KERNELS = ['aes-cbc-decrypt', 'sha256'];

/** A noiseless run: every round gives exactly `speedup` (taskpool-8) and 0.8x of it (taskpool-4). */
function exactRun(machine: string, policy: Policy, speedups: Record<string, number>, env: Partial<EnvironmentRecord> = {}): RawRecord[] {
  const records = syntheticRun({ seed: 1, machine, policy, kernels: KERNELS, arms: ARMS, rounds: 3, repeats: 1, roundSd: 0, repeatSd: 0 });
  return records.map((r) => {
    if (r.type === 'environment') return { ...r, ...env };
    if (r.arm === NATIVE_ARM) return r;
    const s = (speedups[r.kernel] ?? 1) * (r.arm === 'taskpool-8-batched' ? 1 : 0.8);
    return { ...r, repeats: r.repeats.map((x) => ({ ...x, wallNs: Math.round(10_000_000 / s) })) };
  });
}

async function writeRun(dir: string, files: Record<string, RawRecord[]>): Promise<void> {
  for (const [path, records] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), toJsonl(records));
  }
}

test('a run folder gives one row per kernel and machine and one column per policy, in the study layout', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    const m2 = { node: 'v26.8.2', harnessSha256: 'e'.repeat(64) };
    await writeRun(dir, {
      'box-a/whole.jsonl': exactRun('ryzen', 'whole', { 'aes-cbc-decrypt': 3.19, sha256: 0.92 }),
      'box-a/pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8, sha256: 3.79 }),
      'box-b/whole.jsonl': exactRun('m2pro', 'whole', { 'aes-cbc-decrypt': 5.22, sha256: 3.69 }, m2),
      'box-b/pages.jsonl': exactRun('m2pro', 'pages', { 'aes-cbc-decrypt': 4.85, sha256: 5.15 }, m2),
    });
    const report = await buildReport([dir]);
    assert.equal(report.arm, 'taskpool-8-batched');
    assert.deepEqual(report.policies, ['whole', 'pages']);
    assert.deepEqual(report.machines, ['ryzen', 'm2pro']);
    assert.deepEqual(report.notes, [
      'Node version differs: v26.10.0 (ryzen), v26.8.2 (m2pro).',
      'Harness source SHA256 differs: bbbbbbbbbbbb (ryzen), eeeeeeeeeeee (m2pro).',
    ]);
    assert.equal(
      renderReport(report, 'markdown'),
      [
        'Paired median speedup over native / CPU ratio for `taskpool-8-batched`.',
        '',
        '> **Note:** Node version differs: v26.10.0 (ryzen), v26.8.2 (m2pro).',
        '>',
        '> **Note:** Harness source SHA256 differs: bbbbbbbbbbbb (ryzen), eeeeeeeeeeee (m2pro).',
        '',
        '| Kernel | Machine | `whole` | `pages` |',
        '| --- | --- | ---: | ---: |',
        '| aes-cbc-decrypt | ryzen | 3.19x / 0.80 | 4.80x / 0.80 |',
        '| sha256 | ryzen | 0.92x / 0.80 | 3.79x / 0.80 |',
        '| aes-cbc-decrypt | m2pro | 5.22x / 0.80 | 4.85x / 0.80 |',
        '| sha256 | m2pro | 3.69x / 0.80 | 5.15x / 0.80 |',
        '',
        ...report.footer.map((f) => `- ${f}`),
        '',
      ].join('\n'),
    );
    assert.match(report.footer.join('\n'), /within-run variation only, not run-to-run variation/);
    const text = renderReport(report, 'text', { intervals: true });
    assert.match(text, /^note: Node version differs/m);
    assert.match(text, /^aes-cbc-decrypt\s+ryzen\s+3\.19x \[3\.19-3\.19\] \/ 0\.80 \[0\.80-0\.80\]\s+4\.80x/m);
    assert.match(text, /within-run variation only/);
    const csv = renderReport(report, 'csv').split('\n');
    // The header first and nothing but data after it: no comment lines for naive readers to trip on.
    assert.equal(csv[0], 'kernel,machine,policy,arm,speedup,speedup_lo,speedup_hi,cpu_ratio,cpu_ratio_lo,cpu_ratio_hi,rounds,failures,native_failures,wall_per_job_ns,native_wall_per_job_ns,run,started_at');
    assert.equal(csv.filter((l) => l.startsWith('#')).length, 0);
    assert.equal(csv.length, 1 + 4 * 2 + 1, 'header, one line per (row, policy) cell, final newline');
    assert.equal(csv.filter((l) => l.startsWith('sha256,m2pro,pages,')).length, 1);
    const json = JSON.parse(renderReport(report, 'json')) as { notes: string[]; rows: unknown[] };
    assert.deepEqual(json.notes, report.notes);
    assert.equal(json.rows.length, 4);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a cell whose samples failed checks is marked, and machine names fall back to folder names', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    const records = exactRun('ignored', 'pages', { 'aes-cbc-decrypt': 4.8, sha256: 2 }).map((r): RawRecord => {
      if (r.type === 'environment') return r;
      const failed = (r.kernel === 'aes-cbc-decrypt' && r.arm === 'taskpool-8-batched' && r.round <= 2) || (r.kernel === 'aes-cbc-decrypt' && r.arm === NATIVE_ARM && r.round === 3);
      return failed ? ({ ...r, ok: false, failures: ['return value 17 differs from the oracle 18'] } satisfies SampleRecord) : r;
    });
    // No environment row: the folder's name is the machine's.
    await writeRun(dir, { 'lab-box/pages.jsonl': records.slice(1) });
    const report = await buildReport([join(dir, 'lab-box')]);
    assert.deepEqual(report.machines, ['lab-box']);
    assert.deepEqual(report.policies, ['pages']);
    const md = renderReport(report, 'markdown');
    assert.match(md, /\| aes-cbc-decrypt \| lab-box \| 4\.80x \/ 0\.80 !3 failed \|/);
    assert.match(md, /\| sha256 \| lab-box \| 2\.00x \/ 0\.80 \|/);
    assert.match(md, /lab-box\/pages: no environment row; the machine is named after its folder/);
    assert.match(md, /"!N failed": N samples behind the cell/);
    assert.equal(report.failedSamples, 3);
    // As a CI gate: the whole report, then exit 3 with one line saying why.
    const gate = await runCli(['report', join(dir, 'lab-box'), '--fail-on', 'failures']);
    assert.equal(gate.code, 3);
    assert.equal(gate.stdout, md);
    assert.equal(gate.stderr, 'report: --fail-on failures: 3 samples failed a check\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a fresh summary is used, a stale one is replaced by analyzing the raw file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    await writeRun(dir, { 'pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8, sha256: 2 }) });
    const summary = await summarizeRawFile(join(dir, 'pages.jsonl'), { resamples: 500, seed: 9 });
    await writeSummary(join(dir, 'pages.summary.json'), summary);
    const fresh = await buildReport([dir]);
    assert.deepEqual(fresh.sources, [{ machine: 'ryzen', policy: 'pages', path: join(dir, 'pages.summary.json'), origin: 'summary' }]);
    assert.match(fresh.footer.join('\n'), /500 resamples/);
    assert.deepEqual(fresh.notes, []);

    await writeRun(dir, { 'pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 5, sha256: 2 }) });
    const stale = await buildReport([dir]);
    assert.equal(stale.sources[0]?.origin, 'stale-summary');
    assert.equal(stale.rows[0]?.cells[0]?.speedup.median, 5);
    assert.deepEqual(stale.notes, ['ryzen/pages: pages.summary.json does not match pages.jsonl (made from other bytes, or unreadable); the raw file was analyzed instead.']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('without taskpool-8-batched the table falls back to the widest batched taskpool arm and says so', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    // The plan asked for taskpool-8-batched (its arms are in the environment row), yet no sample of it is here.
    const records = exactRun('ryzen', 'whole', { 'aes-cbc-decrypt': 5, sha256: 5 }, { arms: ARMS }).filter((r) => r.type === 'environment' || r.arm !== 'taskpool-8-batched');
    await writeRun(dir, { 'whole.jsonl': records });
    const report = await buildReport([dir]);
    assert.equal(report.arm, 'taskpool-4-batched');
    assert.deepEqual(report.notes, ['taskpool-8-batched is not in any result; the table shows taskpool-4-batched, the widest batched taskpool arm present.']);
    assert.equal(report.rows[0]?.cells[0]?.speedup.median, 4);
    await assert.rejects(buildReport([dir], { arm: 'taskpool-3-batched' }), /unknown arm "taskpool-3-batched"/);
    const explicit = await buildReport([dir], { arm: 'taskpool-8-batched' });
    assert.deepEqual(explicit.rows.map((r) => r.cells[0]), [null, null]);
    assert.match(renderReport(explicit, 'markdown'), /\| aes-cbc-decrypt \| ryzen \| - \|/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a plan that never asked for taskpool-8-batched gets its widest batched taskpool arm without a note', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    const smaller = [NATIVE_ARM, 'taskpool-4-batched'];
    const planned = exactRun('ryzen', 'whole', { sha256: 5 }, { arms: smaller }).filter((r) => r.type === 'environment' || r.arm !== 'taskpool-8-batched');
    await writeRun(dir, { 'a/whole.jsonl': planned });
    const report = await buildReport([join(dir, 'a')]);
    assert.equal(report.arm, 'taskpool-4-batched');
    assert.deepEqual(report.notes, []);
    // Files from before the environment row named the plan's arms: nothing says the plan asked, so no note either.
    await writeRun(dir, { 'b/whole.jsonl': exactRun('ryzen', 'whole', { sha256: 5 }).filter((r) => r.type === 'environment' || r.arm !== 'taskpool-8-batched') });
    assert.deepEqual((await buildReport([join(dir, 'b')])).notes, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a plan without a batched taskpool arm gets a table of its widest other pool arm, a note naming the rest, and a report.md when its run is finalized', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    const arms = [NATIVE_ARM, 'workers-2-batched', 'taskpool-2-unbatched'];
    await writeRun(dir, { 'whole.jsonl': syntheticRun({ seed: 3, machine: 'ryzen', policy: 'whole', kernels: KERNELS, arms, rounds: 3, repeats: 1 }) });
    const report = await buildReport([dir]);
    assert.equal(report.arm, 'workers-2-batched');
    assert.deepEqual(report.notes, ['No batched taskpool arm in these results; the table shows workers-2-batched (also present: taskpool-2-unbatched; choose one with --arm).']);
    assert.deepEqual(report.rows.map((r) => [r.kernel, r.cells[0]?.rounds]), [['aes-cbc-decrypt', 3], ['sha256', 3]]);
    const cli = await runCli(['report', dir]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, renderReport(report, 'markdown'));
    // Only native: nothing to compare it with, said as such.
    const nativeOnly = join(dir, 'native');
    await writeRun(nativeOnly, { 'whole.jsonl': syntheticRun({ seed: 3, machine: 'ryzen', policy: 'whole', kernels: KERNELS, arms: [NATIVE_ARM], rounds: 2, repeats: 1 }) });
    await assert.rejects(buildReport([nativeOnly]), { code: 'USAGE', message: 'these results hold no pool arm, only native: there is nothing to compare native with' });

    // The coordinator's finalization of such a run writes its report.md.
    const dataDir = join(dir, 'data');
    const runId = await writeFinishedRun(dataDir, { planName: 'no batched taskpool', machines: ['ryzen'], policies: ['whole'], kernels: KERNELS, arms, seed: 4 });
    assert.match(await readFile(join(dataDir, 'runs', runId, 'report.md'), 'utf8'), /workers-2-batched/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the report shows each machine\'s wait for a quiet machine and a Mac\'s power, thermal state and unreadable facts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    const mac = { performanceCores: 8, efficiencyCores: 4, powerSource: 'battery' as const, lowPowerMode: true, cpuSpeedLimit: 71, thermalWarningLevel: 0, unreadable: [] };
    await writeRun(dir, {
      'ryzen/whole.jsonl': exactRun('ryzen', 'whole', { sha256: 2 }, { loadWait: { maxLoad: 2, limitSeconds: 900, waitedMs: 42_400, timedOut: false, loadAtStart: 1.41 } }),
      'm2pro/whole.jsonl': exactRun('m2pro', 'whole', { sha256: 2 }, { loadWait: { maxLoad: 3, limitSeconds: 900, waitedMs: 900_050, timedOut: true, loadAtStart: 3.4 }, macos: mac }),
      'm2pro/pages.jsonl': exactRun('m2pro', 'pages', { sha256: 2 }, {
        loadWait: { maxLoad: 3, limitSeconds: 900, waitedMs: 900_050, timedOut: true, loadAtStart: 3.4 },
        macos: { ...mac, powerSource: null, unreadable: ['pmset -g batt: ENOENT'] },
      }),
    });
    const report = await buildReport([dir]);
    assert.deepEqual(report.notes, [
      'm2pro: the 1-minute load average stayed at or above --max-load 3 for the whole 900 s --max-load-wait; the run started anyway at 3.40.',
      'm2pro: ran in Low Power Mode (lower clocks: not comparable with a run outside it).',
      'm2pro: ran thermally limited: CPU speed limit 71% (pmset -g therm).',
      'm2pro/pages: a macOS fact could not be read and is recorded as null (pmset -g batt: ENOENT).',
      'm2pro/whole: ran on battery power (macOS may lower clocks).',
      'ryzen: waited 42 s for the 1-minute load average to fall below --max-load 2 (1.41 at the start).',
    ]);
    assert.match(renderReport(report, 'markdown'), /> \*\*Note:\*\* m2pro: the 1-minute load average stayed at or above --max-load 3/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the same machine in two runs keeps two rows, the later named with its folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    await writeRun(dir, {
      'run1/ryzen/pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 7.42 }),
      'run2/ryzen/pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8 }),
    });
    const report = await buildReport([join(dir, 'run1'), join(dir, 'run2')]);
    assert.deepEqual(report.machines, ['ryzen', `ryzen (${join(dir, 'run2', 'ryzen')})`]);
    assert.deepEqual(report.rows.filter((r) => r.kernel === 'aes-cbc-decrypt').map((r) => r.cells[0]?.speedup.median.toFixed(2)), ['7.42', '4.80']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('report chooses markdown on a pipe and text on a terminal, and refuses two formats', async () => {
  const none = { markdown: false, text: false, json: false, csv: false };
  assert.equal(chooseFormat(none, false), 'markdown');
  assert.equal(chooseFormat(none, true), 'text');
  assert.equal(chooseFormat({ ...none, csv: true }, true), 'csv');
  assert.throws(() => chooseFormat({ ...none, csv: true, json: true }, false), /choose one output format; got --json and --csv/);
  const missing = await runCli(['report', '/nonexistent/results']);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, 'Error [FILE_NOT_FOUND]: no such result folder: /nonexistent/results\n');
});

test('report from the CLI on a pipe prints markdown', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    await writeRun(dir, { 'pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8, sha256: 2 }) });
    const result = await runCli(['report', dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, renderReport(await buildReport([dir]), 'markdown'));
    assert.equal(await readFile(join(dir, 'pages.jsonl'), 'utf8').then((t) => t.length > 0), true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** One file's environment row for the notes: exactRun's, with `over` changed. */
function environmentOf(machine: string, policy: Policy, over: Partial<EnvironmentRecord>): { machine: string; policy: Policy; environment: EnvironmentRecord } {
  return { machine, policy, environment: { ...(exactRun(machine, policy, {})[0] as EnvironmentRecord), ...over } };
}

test('notes name differing plans and corpus modules, by machine, or by machine and policy when a machine disagrees with itself', async () => {
  const { environmentNotes } = await import('../../analysis/report/report-notes.ts');
  const notes = environmentNotes([
    environmentOf('ryzen', 'whole', { corpus: { aes: '1'.repeat(64), sha256: '2'.repeat(64) } }),
    environmentOf('ryzen', 'pages', { corpus: { aes: '1'.repeat(64), sha256: '2'.repeat(64) }, planSha256: 'f'.repeat(64) }),
    environmentOf('m2pro', 'whole', { corpus: { aes: '3'.repeat(64), sha256: '2'.repeat(64) } }),
  ]);
  assert.deepEqual(notes, [
    'Plan SHA256 differs: aaaaaaaaaaaa (ryzen/whole, m2pro), ffffffffffff (ryzen/pages): these results come from different plans.',
    'Corpus module SHA256 of aes differs: 111111111111 (ryzen), 333333333333 (m2pro).',
  ]);
});

test('notes name tracked twins that differ over one plain module, and leave twins of differing modules to the module note', async () => {
  const { environmentNotes } = await import('../../analysis/report/report-notes.ts');
  const notes = environmentNotes([
    environmentOf('ryzen', 'pages', { corpus: { aes: '1'.repeat(64), sha256: '2'.repeat(64) } }),
    environmentOf('ryzen', 'tracked', { corpus: { aes: '1'.repeat(64), sha256: '2'.repeat(64) }, trackedCorpus: { aes: '4'.repeat(64), sha256: '5'.repeat(64) } }),
    environmentOf('m2pro', 'tracked', { corpus: { aes: '1'.repeat(64), sha256: '3'.repeat(64) }, trackedCorpus: { aes: '6'.repeat(64), sha256: '7'.repeat(64) } }),
  ]);
  // aes: one plain module, two twins (an instrumenter that changed); sha256: two plain modules, so two twins.
  assert.deepEqual(notes, [
    'Tracked twin SHA256 of aes differs: 444444444444 (ryzen), 666666666666 (m2pro).',
    'Corpus module SHA256 of sha256 differs: 222222222222 (ryzen), 333333333333 (m2pro).',
  ]);
  const same = environmentNotes([
    environmentOf('ryzen', 'tracked', { corpus: { aes: '1'.repeat(64) }, trackedCorpus: { aes: '4'.repeat(64) } }),
    environmentOf('m2pro', 'tracked', { corpus: { aes: '1'.repeat(64) }, trackedCorpus: { aes: '4'.repeat(64) } }),
  ]);
  assert.deepEqual(same, []);
});

test('an environment row whose trackedCorpus is not an object of SHA256 strings is refused naming the field', async () => {
  const { validateEnvironment } = await import('../../shared/record-validate.ts');
  const row = exactRun('ryzen', 'tracked', {})[0] as EnvironmentRecord;
  assert.equal(validateEnvironment({ ...row, trackedCorpus: { aes: '4'.repeat(64) } }).ok, true);
  assert.deepEqual(validateEnvironment({ ...row, trackedCorpus: { aes: 4 } }), { ok: false, message: 'environment row: field "trackedCorpus" is {"aes":4}; expected absent, or an object of kernel name to SHA256' });
});

test('the tracked policy gets its own column, after the study three, whatever order the files come in', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-tracked-'));
  try {
    await writeRun(dir, {
      'box/tracked.jsonl': exactRun('ryzen', 'tracked', { 'aes-cbc-decrypt': 4.7, sha256: 3.6 }),
      'box/checkpoint.jsonl': exactRun('ryzen', 'checkpoint', { 'aes-cbc-decrypt': 4.52, sha256: 2.52 }),
      'box/whole.jsonl': exactRun('ryzen', 'whole', { 'aes-cbc-decrypt': 3.19, sha256: 0.92 }),
      'box/pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8, sha256: 3.79 }),
    });
    const report = await buildReport([dir]);
    assert.deepEqual(report.policies, ['whole', 'pages', 'checkpoint', 'tracked']);
    const table = renderReport(report, 'markdown').split('\n').filter((l) => l.startsWith('|'));
    assert.deepEqual(table, [
      '| Kernel | Machine | `whole` | `pages` | `checkpoint` | `tracked` |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
      '| aes-cbc-decrypt | ryzen | 3.19x / 0.80 | 4.80x / 0.80 | 4.52x / 0.80 | 4.70x / 0.80 |',
      '| sha256 | ryzen | 0.92x / 0.80 | 3.79x / 0.80 | 2.52x / 0.80 | 3.60x / 0.80 |',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a cell of one round shows no interval, in the table or the CSV', async () => {
  const { cellText } = await import('../../analysis/report/report-cell-text.ts');
  const one = { speedup: { median: 1.03, lo: 1.03, hi: 1.03 }, cpuRatio: { median: 1, lo: 1, hi: 1 }, rounds: 1, failures: 0, nativeFailures: 0 };
  // The old table read `1.03x [1.03-1.03]`: an interval from nothing.
  assert.equal(cellText(one, true), '1.03x / 1.00 (1 round, no interval)');
  assert.equal(cellText({ ...one, rounds: 2 }, true), '1.03x [1.03-1.03] / 1.00 [1.00-1.00]');
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    await writeRun(dir, { 'pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 4.8 }).filter((r) => r.type === 'environment' || r.round === 1) });
    const report = await buildReport([dir]);
    const csv = renderReport(report, 'csv');
    // Then the arm's and native's wall time per job (their ratio is the speedup), the result
    // folder's name (not a run's folder here) and when the run of the policy started.
    const match = /^aes-cbc-decrypt,ryzen,pages,taskpool-8-batched,4\.8\d*,,,[\d.]+,,,1,0,0,([\d.]+),([\d.]+),(bf-report-\w+),(\S+)$/m.exec(csv);
    assert.ok(match, csv);
    assert.ok(Math.abs(Number(match[2]) / Number(match[1]) - 4.8) < 1e-6, `${match[2]} / ${match[1]}`);
    assert.equal(match[3], basename(dir));
    assert.equal(match[4], report.rows[0]?.cells[0]?.startedAt);
    assert.ok(!Number.isNaN(Date.parse(match[4] ?? '')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a later folder without the first folders\' arm moves every row to the arm all have, as when the results are loaded together', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-'));
  try {
    await writeRun(dir, { 'run1/ryzen/pages.jsonl': exactRun('ryzen', 'pages', { 'aes-cbc-decrypt': 7.5, sha256: 2.5 }) });
    // run2 has no taskpool-8-batched: the table shows taskpool-4-batched, 0.8x of taskpool-8's speedup.
    const run2 = exactRun('m2pro', 'pages', { 'aes-cbc-decrypt': 5, sha256: 2 }).filter((r) => r.type !== 'sample' || r.arm !== 'taskpool-8-batched');
    await writeRun(dir, { 'run2/m2pro/pages.jsonl': run2 });
    const given = await summarizeRawFile(join(dir, 'run2', 'm2pro', 'pages.jsonl'));
    const report = await buildReport([join(dir, 'run1'), given]);
    assert.equal(report.arm, 'taskpool-4-batched');
    assert.deepEqual(report.rows.map((r) => [r.machine, r.kernel, r.cells[0]?.speedup.median.toFixed(2)]), [
      ['ryzen', 'aes-cbc-decrypt', '6.00'], ['ryzen', 'sha256', '2.00'], ['m2pro', 'aes-cbc-decrypt', '4.00'], ['m2pro', 'sha256', '1.60'],
    ]);
    assert.deepEqual(report, buildReportFromResults([...(await loadResults([join(dir, 'run1')])), { files: null, summary: given, origin: 'summary' }]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
