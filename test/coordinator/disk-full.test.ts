// The coordinator's data folder on a real, tiny tmpfs that fills up mid-run: no batch is
// acknowledged that is not on disk whole, a torn tail is cut back to the last complete line,
// the agent is told to resend (STORAGE_FAILED), and the same batch is taken once space is free.
// Needs root for `mount -t tmpfs`; skipped, saying so, where mounting is not possible.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { environmentRecord, planFields, sampleRecord } from '../helpers/raw-records.ts';
import { connectRawAgent, startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { fillLeaving, mountTmpfs } from '../helpers/tmpfs.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { runCli } from '../helpers/run-cli.ts';
import { nativePlan } from '../helpers/test-plans.ts';
import { readManifest, verifyManifest } from '../../analysis/raw/manifest.ts';
import { readSummaryFile } from '../../analysis/summary/summary-io.ts';
import type { ControlSocket } from '../../cli/control-client.ts';
import { connectControl } from '../../cli/control-client.ts';
import { startBenchfleet } from '../helpers/processes.ts';

// Forty repeats: lines of about 2 KB (see below), each sample holding the plan's repeats.
const PLAN = nativePlan('disk full', { rounds: 60, repeats: 40 });

let mountPoint: string | null = null;
let unmount: (() => void) | null = null;
let skipReason: string | false = false;
before(async () => {
  const mounted = await mountTmpfs('512k');
  if (mounted.ok) ({ dir: mountPoint, unmount } = mounted);
  else skipReason = mounted.reason;
});
after(() => unmount?.());

/**
 * Start PLAN on machine `disk` (its agent connected) and make its first `count` sample lines
 * after the environment row: about 2 KB each, so that one batch of ten spans several pages of
 * the tmpfs.
 */
async function startDiskRun(c: TestCoordinator, count: number): Promise<{ runId: string; lines: string[] }> {
  const control = await c.control();
  const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: JSON.stringify(PLAN), machines: ['disk'] });
  if (!started.ok) throw new Error(`run:start refused: ${JSON.stringify(started)}`);
  const { runId, planSha256 } = started.value;
  const walls = Array.from({ length: 40 }, (_, i) => 1_000_000 + i);
  const lines = [
    JSON.stringify(environmentRecord({ machine: 'disk', policy: 'whole', planSha256, ...planFields(PLAN) })),
    ...Array.from({ length: count }, (_, i) => JSON.stringify(sampleRecord({ seq: i + 1, kernel: 'xxhash32', arm: 'native', round: i + 1, policy: 'whole', walls }))),
  ];
  return { runId, lines };
}

test('a coordinator whose disk fills acknowledges only whole batches and takes the resent batch once space is freed', async (t) => {
  if (skipReason || !mountPoint) return t.skip(String(skipReason));
  let c: TestCoordinator | null = null;
  try {
    c = await startTestCoordinator({ dataDir: join(mountPoint, 'data') });
    const agent = await c.agent('disk');
    const { runId, lines } = await startDiskRun(c, 30);
    const send = (fromSeq: number, count: number) =>
      request<AgentToCoordinator, 'records'>(agent, 10_000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq, lines: lines.slice(fromSeq, fromSeq + count) }));
    const raw = join(c.dataDir, 'runs', runId, 'disk', 'whole.jsonl');

    assert.deepEqual(await send(0, 6), { ok: true, next: 6 });
    const before = await readFile(raw);
    const filler = await fillLeaving(mountPoint, 4096);
    const refused = await send(6, 10);
    assert.equal(refused.ok, false, 'a batch larger than the free space must be refused');
    if (!refused.ok) {
      assert.equal(refused.code, 'STORAGE_FAILED');
      assert.equal(refused.next, 6, 'the coordinator says where its copy ends');
      assert.match(refused.message, /ENOSPC/);
    }
    // Not a byte of the refused batch stayed behind: no torn line for the next batch to glue onto.
    assert.deepEqual(await readFile(raw), before);

    await rm(filler);
    assert.deepEqual(await send(6, 10), { ok: true, next: 16 });
    assert.deepEqual(await send(16, 15), { ok: true, next: 31 });
    assert.equal(await readFile(raw, 'utf8'), `${lines.join('\n')}\n`, 'every line exactly once, in order, none torn');
  } finally {
    await c?.close();
  }
});

test('after a restart, a batch that the full disk refuses is cut back to the file as the restart found it, not shorter', async (t) => {
  if (skipReason || !mountPoint) return t.skip(String(skipReason));
  const dataDir = join(mountPoint, 'restarted');
  let c: TestCoordinator | null = await startTestCoordinator({ dataDir });
  const token = c.token;
  let filler: string | null = null;
  try {
    let agent = await c.agent('disk');
    const { runId, lines } = await startDiskRun(c, 20);
    const send = (fromSeq: number, count: number) =>
      request<AgentToCoordinator, 'records'>(agent, 10_000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq, lines: lines.slice(fromSeq, fromSeq + count) }));
    assert.deepEqual(await send(0, 6), { ok: true, next: 6 });
    await c.close();
    // The restarted coordinator knows the file only from disk: its first append there fails.
    c = await startTestCoordinator({ dataDir, token });
    agent = await c.agent('disk');
    const raw = join(c.dataDir, 'runs', runId, 'disk', 'whole.jsonl');
    const before = await readFile(raw);
    filler = await fillLeaving(mountPoint, 4096);
    const refused = await send(6, 10);
    assert.equal(refused.ok, false, 'a batch larger than the free space must be refused');
    if (!refused.ok) assert.equal(refused.next, 6, 'the coordinator says where its copy ends');
    assert.deepEqual(await readFile(raw), before, 'the six lines taken before the restart are all still there, byte for byte');
    await rm(filler);
    filler = null;
    assert.deepEqual(await send(6, 15), { ok: true, next: 21 });
    assert.equal(await readFile(raw, 'utf8'), `${lines.join('\n')}\n`, 'every line exactly once, in order, none torn');
  } finally {
    if (filler) await rm(filler);
    await c?.close();
  }
});

test('a coordinator process whose disk fills during finalization says it retries, and once space is back completes the run exactly once with every file whole', async (t) => {
  if (skipReason || !mountPoint) return t.skip(String(skipReason));
  const token = randomBytes(16).toString('hex');
  const tokenFile = join(await tempDir(t, 'bf-final-token-'), 'token');
  await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  const dataDir = join(mountPoint, 'final');
  const coordinator = startBenchfleet(['coordinator', '--data', dataDir, '--listen', '127.0.0.1:0', '--dashboard', '127.0.0.1:0', '--token-file', tokenFile]);
  const sockets: { close(): unknown }[] = [];
  let filler: string | null = null;
  try {
    const url = (await coordinator.waitFor(/listening on (\S+)/))[1] as string;
    const dashboardUrl = (await coordinator.waitFor(/dashboard on (\S+?)\/ /))[1] as string;
    const agent = await connectRawAgent(url, token, 'final');
    const control = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token });
    sockets.push(agent, control);
    const plan = { name: 'full at the end', kernels: ['xxhash32', 'crc32'], arms: ['native', 'taskpool-2-batched'], policies: ['whole'], rounds: 2, repeats: 2, jobs: 1, seed: 1, schedule: 'sequential' };
    const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText: JSON.stringify(plan), machines: ['final'] });
    assert.equal(started.ok, true, JSON.stringify(started));
    if (!started.ok) return;
    const { runId, planSha256 } = started.value;
    const { updates, reports, waitFor } = heard(control);
    assert.equal((await request<ControlToCoordinator, 'run:follow'>(control, 10_000, 'run:follow', runId)).ok, true);

    const samples = plan.kernels.flatMap((kernel) => [1, 2].flatMap((round) => plan.arms.map((arm) => ({ kernel, round, arm }))));
    const lines = [
      JSON.stringify(environmentRecord({ machine: 'final', policy: 'whole', planSha256, rounds: 2, repeats: 2, jobs: 1, arms: plan.arms })),
      ...samples.map((s, i) => JSON.stringify(sampleRecord({ seq: i + 1, policy: 'whole', jobs: 1, walls: [1_000_000 + i, 1_000_100 + i], order: (i % 2) + 1, ...s }))),
    ];
    const ack = await request<AgentToCoordinator, 'records'>(agent, 10_000, 'records', encodeRecordBatch({ runId, policy: 'whole', fromSeq: 0, lines }));
    assert.deepEqual(ack, { ok: true, next: lines.length });
    // One free page: room to save run.json (replaced in place), none for a summary or the report.
    filler = await fillLeaving(mountPoint, 4096);
    const finished = await request<AgentToCoordinator, 'run:finished'>(agent, 10_000, 'run:finished', { runId, status: 'completed', lines: { whole: lines.length } });
    assert.deepEqual(finished, { ok: true, value: null });

    await waitFor(() => updates.some((r) => r.finalizing !== undefined), 'a finalization that failed and is retried');
    const retrying = updates.find((r) => r.finalizing !== undefined) as RunSummary;
    assert.equal(retrying.state, 'delivering');
    assert.match(retrying.finalizing ?? '', /^finalizing failed: .*ENOSPC.*; retrying in 1 s$/);
    const status = await runCli(['status', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token } });
    assert.equal(status.code, 0, status.stderr);
    // What finalization had summarized before the write that failed comes first, when it is known.
    assert.match(status.stdout, new RegExp(`${runId} +delivering \\((summarized \\d+ of \\d+ raw files?; )?finalizing failed: .*ENOSPC.*; retrying in \\d+ s\\)`));
    // What `status --json` prints: the status answer as it is.
    const answer = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    const listed = answer.ok ? answer.value.runs.find((r) => r.runId === runId) : undefined;
    assert.equal(listed?.state, 'delivering');
    assert.match(listed?.finalizing ?? '', /^finalizing failed: .*ENOSPC.*; retrying in \d+ s$/);
    const login = await fetch(`${dashboardUrl}/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const view = (await (await fetch(`${dashboardUrl}/api/runs/${runId}`, { headers: { cookie } })).json()) as { run: { state: string; finalizing: string | null } };
    assert.equal(view.run.state, 'delivering');
    assert.match(view.run.finalizing ?? '', /^finalizing failed: .*ENOSPC.*; retrying in \d+ s$/);
    const runDir = join(dataDir, 'runs', runId);
    assert.deepEqual(await temporaryFiles(runDir), [], 'a failed attempt leaves no temporary file');

    await rm(filler);
    filler = null;
    await waitFor(() => reports.length > 0, 'the run completed and its report sent', 90_000);
    assert.deepEqual(updates.filter((u) => u.state === 'completed').map((u) => u.finalizing), [undefined]);
    assert.equal(await readFile(join(runDir, 'final', 'whole.jsonl'), 'utf8'), `${lines.join('\n')}\n`);
    const verdict = await verifyManifest(runDir);
    assert.deepEqual(verdict.differences, []);
    assert.deepEqual(
      (await readManifest(runDir)).files.map((f) => f.path),
      ['final/whole.jsonl', 'final/whole.summary.json', 'plan.json', 'report.md'],
    );
    assert.equal((await readSummaryFile(join(runDir, 'final', 'whole.summary.json'))).counts.samples, samples.length);
    assert.match(await readFile(join(runDir, 'report.md'), 'utf8'), /\| xxhash32 \| final \|/);
    assert.deepEqual(await temporaryFiles(runDir), []);
    // Exactly once: one completed state, one report, and the process still serving.
    assert.equal(reports.length, 1);
    const after = await request<ControlToCoordinator, 'status'>(control, 10_000, 'status');
    assert.deepEqual(after.ok ? after.value.runs.map((r) => [r.runId, r.state, r.finalizing]) : after, [[runId, 'completed', undefined]]);
  } finally {
    for (const socket of sockets) socket.close();
    if (filler) await rm(filler);
    await coordinator.stop();
  }
});

/** Everything a control client hears of runs, kept, with a wait for what has come or is to come. */
function heard(control: ControlSocket): { updates: RunSummary[]; reports: string[]; waitFor: (accept: () => boolean, what: string, timeoutMs?: number) => Promise<void> } {
  const updates: RunSummary[] = [];
  const reports: string[] = [];
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of waiters) w();
  };
  control.on('run:update', (run) => {
    updates.push(run);
    wake();
  });
  control.on('run:report', (report) => {
    reports.push(report.markdown);
    wake();
  });
  return {
    updates,
    reports,
    waitFor: (accept, what, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!accept()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; updates: ${JSON.stringify(updates.map((u) => [u.state, u.finalizing]))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

/** Temporary files of atomic writes anywhere under `dir`. */
async function temporaryFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.tmp')).sort();
}
