// A coordinator and two agents, all real processes on loopback, complete a run; the run
// survives a SIGKILLed coordinator and an agent's lost connection with every sample exactly once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { completeLines, waitForLines } from '../helpers/file-waits.ts';
import { startBenchfleet } from '../helpers/processes.ts';
import { getJson } from '../../shared/protocol/http-client.ts';
import { createFleet, plannedSamples, readJsonLines, sha256, SLOW_SAMPLES_PLAN, SMALL_PLAN, startRun, waitForRun, type Fleet } from './fleet-helpers.ts';
import { verifyManifest } from '../../analysis/raw/manifest.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('local-a');
  await fleet.startAgent('local-b');
});
after(async () => {
  await fleet.stopAll();
});

/** Each policy file of a machine: one environment row, then samples seq 1..n exactly once, byte-identical to the agent's spool. */
async function assertComplete(runId: string, machine: string, plan: typeof SMALL_PLAN, planSha256: string): Promise<void> {
  const runDir = join(fleet.dir, 'coordinator', 'runs', runId);
  for (const policy of plan.policies) {
    const path = join(runDir, machine, `${policy}.jsonl`);
    const records = await readJsonLines(path);
    assert.equal(records.length, 1 + plannedSamples(plan), `${machine}/${policy} line count`);
    assert.equal(records[0]?.['type'], 'environment');
    assert.equal(records[0]?.['planSha256'], planSha256);
    assert.equal(records[0]?.['machine'], machine);
    assert.deepEqual(records.slice(1).map((r) => r['seq']), Array.from({ length: plannedSamples(plan) }, (_, i) => i + 1));
    const keys = new Set(records.slice(1).map((r) => `${String(r['kernel'])}/${String(r['arm'])}/${String(r['round'])}`));
    assert.equal(keys.size, plannedSamples(plan), 'every (kernel, arm, round) once');
    const spool = await readFile(join(fleet.dir, 'agents', machine, 'runs', runId, 'out', `${policy}.jsonl`));
    assert.equal(sha256(await readFile(path)), sha256(spool), 'coordinator copy is byte-identical to the harness file');
    await stat(join(runDir, machine, `${policy}.summary.json`));
  }
}

test('a coordinator and two agents complete a small run with identical plans, summaries, report and a manifest that verifies', async () => {
  const socket = await fleet.control();
  const { runId, planSha256, planText } = await startRun(socket, SMALL_PLAN, ['local-a', 'local-b']);
  socket.close();
  assert.equal(planSha256, sha256(planText));
  const run = await waitForRun(fleet, runId);
  assert.equal(run.state, 'completed');
  for (const m of ['local-a', 'local-b']) await assertComplete(runId, m, SMALL_PLAN, planSha256);
  for (const m of ['local-a', 'local-b']) {
    const planned = SMALL_PLAN.policies.length * plannedSamples(SMALL_PLAN);
    assert.deepEqual([run.machines[m]?.done, run.machines[m]?.total], [planned, planned], `${m}: done and total are the planned samples`);
  }
  const runDir = join(fleet.dir, 'coordinator', 'runs', runId);
  assert.equal(await readFile(join(runDir, 'plan.json'), 'utf8'), planText);
  const report = await readFile(join(runDir, 'report.md'), 'utf8');
  assert.match(report, /local-a/);
  assert.match(report, /local-b/);
  const verdict = await verifyManifest(runDir);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));

  // `results` copies the whole folder over HTTP: more files than socket.io's ten attachments.
  const out = join(fleet.dir, `results-${runId}`);
  const results = startBenchfleet(['results', runId, '--out', out, '--json', '--coordinator', fleet.url], fleet.env);
  const { code } = await results.exited;
  assert.equal(code, 0, results.output());
  // stdout is the JSON (pretty-printed); the debug log lines on stderr are interleaved around it.
  const copied = JSON.parse(/^\{$[\s\S]*?^\}$/m.exec(results.output())?.[0] ?? '') as { files: number; manifest: { ok: boolean; checked: number } };
  assert.ok(copied.files > 10, `only ${copied.files} files`);
  assert.equal(copied.manifest.ok, true);
  for (const machine of ['local-a', 'local-b']) {
    for (const policy of SMALL_PLAN.policies) assert.equal(sha256(await readFile(join(out, machine, `${policy}.jsonl`))), sha256(await readFile(join(runDir, machine, `${policy}.jsonl`))));
  }
  // As text: the count copied and the count the manifest lists add up, naming what lies between.
  const asText = startBenchfleet(['results', runId, '--out', `${out}-text`, '--coordinator', fleet.url], { ...fleet.env, BENCHFLEET_LOG: '' });
  assert.equal((await asText.exited).code, 0, asText.output());
  const said = /^copied (\d+) files of run \S+ into \S+\nmanifest verified: the (\d+) files it lists match their byte length and SHA256; the other (\d+) copied \(([^)]*)\) (?:is|are) not in it\n$/.exec(asText.output());
  assert.ok(said, asText.output());
  assert.equal(Number(said[1]), copied.files);
  assert.equal(Number(said[2]), copied.manifest.checked);
  assert.equal(Number(said[2]) + Number(said[3]), Number(said[1]));
  assert.ok((said[4] ?? '').split(', ').includes('manifest.json'), said[4]);
  // Debug logs of the coordinator and both agents (BENCHFLEET_LOG=debug) never show the token.
  for (const log of ['coordinator.log', 'agent-local-a.log', 'agent-local-b.log']) assert.equal((await readFile(join(fleet.dir, log), 'utf8')).includes(fleet.token), false, `${log} shows the token`);
  // Only listed files are served: nothing outside the run folder, however the path is spelled.
  const target = { url: fleet.url, token: fleet.token };
  for (const path of ['..%2F..%2Fagents.json', '%2e%2e/%2e%2e/agents.json', 'local-a/..%2F..%2F..%2Fagents.json', 'local-a%2F..%2Frun.json.tmp', '.%2Fplan.json']) {
    await assert.rejects(getJson(target, `/runs/${runId}/files/${path}`), (error: Error & { code?: string }) => ['FILE_NOT_FOUND', 'PROTOCOL'].includes(error.code ?? ''), path);
  }
});

test('a SIGKILLed coordinator restarted mid-run completes the run with every sample exactly once', async () => {
  // Samples of some length (about 2 s for the first policy file): the agent sends lines at most
  // every 500 ms, so the kill comes while lines are still to be delivered.
  const plan = { ...SLOW_SAMPLES_PLAN, rounds: 5 };
  const socket = await fleet.control();
  const { runId, planSha256 } = await startRun(socket, plan, ['local-a']);
  socket.close();
  const raw = join(fleet.dir, 'coordinator', 'runs', runId, 'local-a', 'whole.jsonl');
  // Kill once some samples have been written, so the restart happens in the middle.
  await waitForLines(raw, 4, 'the first samples on the coordinator');
  const port = fleet.port;
  await fleet.coordinator.stop('SIGKILL');
  const atKill = completeLines(await readFile(raw, 'utf8')).length;
  assert.ok(atKill < 1 + plannedSamples(plan), `the coordinator was killed after the whole policy file was written (${atKill} lines)`);
  await fleet.startCoordinator(port);
  const run = await waitForRun(fleet, runId);
  assert.equal(run.state, 'completed');
  await assertComplete(runId, 'local-a', plan, planSha256);
});

test('an agent that loses its connection for a while still delivers every sample exactly once', async () => {
  const proxy = await startTcpProxy(() => fleet.port);
  try {
    const agent = await fleet.startAgent('proxied', `http://127.0.0.1:${proxy.port}`);
    const plan = { ...SLOW_SAMPLES_PLAN, rounds: 4 };
    const socket = await fleet.control();
    const { runId, planSha256 } = await startRun(socket, plan, ['proxied']);
    socket.close();
    const spool = join(fleet.dir, 'agents', 'proxied', 'runs', runId, 'out', 'whole.jsonl');
    const stored = join(fleet.dir, 'coordinator', 'runs', runId, 'proxied', 'whole.jsonl');
    await waitForLines(stored, 3, 'the first samples on the coordinator');
    const mark = agent.output().length;
    proxy.cut();
    const atCut = completeLines(await readFile(stored, 'utf8')).length;
    assert.ok(atCut < 1 + plannedSamples(plan), `the link was cut after the whole policy file was delivered (${atCut} lines)`);
    // Restore only once the agent has noticed and has measured on without its coordinator.
    await agent.waitFor(/disconnected from the coordinator/, 30_000, mark);
    await waitForLines(spool, Math.min(1 + plannedSamples(plan), atCut + 2), 'samples measured while cut off');
    proxy.restore();
    const run = await waitForRun(fleet, runId);
    assert.equal(run.state, 'completed');
    await assertComplete(runId, 'proxied', plan, planSha256);
  } finally {
    await proxy.close();
  }
});

test('--runs 2 queues a second run that starts only after the first has finished', async () => {
  const plan = { ...SMALL_PLAN, rounds: 1, policies: ['whole'] };
  const socket = await fleet.control();
  const planText = `${JSON.stringify(plan)}\n`;
  const started = await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText, machines: ['local-a'], runs: 2 });
  socket.close();
  assert.equal(started.ok, true);
  const { runIds } = started.ok ? started.value : { runIds: [] };
  assert.equal(runIds.length, 2);
  const [first, second] = runIds as [string, string];
  assert.equal((await waitForRun(fleet, first)).state, 'completed');
  const secondRun = await waitForRun(fleet, second);
  assert.equal(secondRun.state, 'completed');
  assert.equal(secondRun.after, first);
  const runsDir = join(fleet.dir, 'coordinator', 'runs');
  const firstDone = (await stat(join(runsDir, first, 'manifest.json'))).mtimeMs;
  const secondStart = Date.parse(String((await readJsonLines(join(runsDir, second, 'local-a', 'whole.jsonl')))[0]?.['startedAt']));
  assert.ok(secondStart >= firstDone - 5, `second run started ${secondStart - firstDone} ms after the first finished`);
});
