// A plan's own modules on a loopback fleet (a real coordinator and agent, as processes): the
// example plans sent with `benchfleet run` (which reads the module file and the input folder
// into the plan), run by the agent with every sample checked against a fresh instance, stored
// once in the run folder inside plan.json (listed in the manifest), reported like built-in
// kernels; a plan whose carried bytes lie about their SHA-256 is refused by the coordinator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchfleet } from '../helpers/processes.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { verifyManifest } from '../../analysis/raw/manifest.ts';
import { createFleet, readJsonLines, sha256, waitForRun, type Fleet } from './fleet-helpers.ts';
import { growsModule } from '../fixtures/wasm-modules.ts';

const PLANS = fileURLToPath(new URL('../../deploy/plans/', import.meta.url));

let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('local-a');
});
after(async () => {
  await fleet.stopAll();
});

/** `benchfleet run PLAN --machines local-a`, as a user types it; the run id it prints. */
async function runCommand(plan: string): Promise<string> {
  const run = startBenchfleet(['run', join(PLANS, plan), '--machines', 'local-a', '--coordinator', fleet.url], fleet.env);
  const { code } = await run.exited;
  assert.equal(code, 0, run.output());
  const runId = /\b\d{8}-\d{6}-[0-9a-z]{6}\b/.exec(run.output())?.[0];
  assert.ok(runId, run.output());
  return runId;
}

test('both example plans run on the fleet: every sample checked against a fresh instance, pages failing only on the varying inputs', async () => {
  for (const [plan, module, varying] of [['example-xxh64.json', 'xxh64', false], ['example-jsmn.json', 'jsmn', true]] as const) {
    const runId = await runCommand(plan);
    const run = await waitForRun(fleet, runId);
    assert.equal(run.state, 'completed');
    const runDir = join(fleet.dir, 'coordinator', 'runs', runId);
    const stored = await readFile(join(runDir, 'plan.json'), 'utf8');
    const carried = (JSON.parse(stored) as { modules: { name: string; sha256: string; wasm: string }[] }).modules[0];
    assert.equal(carried?.name, module);
    assert.equal(sha256(Buffer.from(carried?.wasm ?? '', 'base64')), carried?.sha256, 'the module bytes are stored in the run folder with the plan');
    const manifest = JSON.parse(await readFile(join(runDir, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    assert.equal(manifest.files.find((f) => f.path === 'plan.json')?.sha256, sha256(stored));
    assert.equal((await verifyManifest(runDir)).ok, true);
    for (const policy of ['whole', 'pages', 'checkpoint', 'tracked', 'fresh']) {
      const records = await readJsonLines(join(runDir, 'local-a', `${policy}.jsonl`));
      assert.equal((records[0]?.['corpus'] as Record<string, string>)[module], carried?.sha256);
      const samples = records.slice(1);
      assert.equal(samples.length, 3 * 3, `${plan} ${policy}: 3 arms x 3 rounds`);
      for (const s of samples) {
        const fails = varying && policy === 'pages' && String(s['arm']).startsWith('taskpool');
        assert.equal(s['ok'], !fails, `${plan} ${policy} ${String(s['arm'])}: ${JSON.stringify(s['failures'])}`);
      }
    }
    const report = await readFile(join(runDir, 'report.md'), 'utf8');
    assert.match(report, new RegExp(`\\b${module}\\b`));
  }
});

test('the coordinator refuses a plan whose carried module bytes do not hash to the pinned SHA-256, naming the field', async () => {
  const doc = JSON.parse(await readFile(join(PLANS, 'example-xxh64.json'), 'utf8')) as { modules: Record<string, unknown>[] };
  const bytes = await readFile(join(PLANS, '../../examples/xxhash/xxh64.wasm'));
  const lying = { ...doc, modules: [{ ...doc.modules[0], wasm: Buffer.from([...bytes, 0]).toString('base64') }] };
  const socket = await fleet.control();
  try {
    const answer = await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText: JSON.stringify(lying), machines: ['local-a'] });
    assert.equal(answer.ok, false);
    assert.equal(answer.ok ? '' : answer.code, 'PLAN_INVALID');
    assert.match(answer.ok ? '' : answer.message, /plan\.modules\[0\]\.wasm has SHA-256 [0-9a-f]{64}, but the plan pins f3cf0b9b/);
  } finally {
    socket.close();
  }
});

test('a module that breaks the contract, sent past the CLI straight to run:start, is refused by the coordinator naming what broke; the agent then runs the next run', async () => {
  const bytes = growsModule();
  const module = { name: 'grows', sha256: sha256(bytes), wasm: Buffer.from(bytes).toString('base64'), entry: 'sum', input: { abi: 'bytes', at: 'in' }, inputs: { seed: 1, size: 16 } };
  const plan = { arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 2, seed: 1, modules: [module] };
  const socket = await fleet.control();
  try {
    const answer = await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText: JSON.stringify(plan), machines: ['local-a'] });
    assert.equal(answer.ok ? '' : answer.code, 'MODULE_REFUSED');
    assert.match(answer.ok ? '' : answer.message, /module "grows" breaks the context contract: memory\.grow at byte \d+/);
    const campaign = await request<ControlToCoordinator, 'campaign:start'>(socket, 30_000, 'campaign:start', { planText: JSON.stringify(plan), machines: ['local-a'], runs: 2 });
    assert.equal(campaign.ok ? '' : campaign.code, 'MODULE_REFUSED');
  } finally {
    socket.close();
  }
  const next = await runCommand('example-xxh64.json');
  assert.equal((await waitForRun(fleet, next)).state, 'completed');
});

test('npm start with an example plan (demo --plan) runs the module on the demo\'s two agents and reports pages failing on the varying inputs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-demo-module-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const demo = startBenchfleet(['demo', '--data', join(dir, 'demo'), '--plan', join(PLANS, 'example-jsmn.json'), '--no-keep-open'], { BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') });
  const { code } = await demo.exited;
  assert.equal(code, 0, demo.output());
  // Three rounds of pages on the taskpool arm, each failing its final-state check on each machine; no other policy fails.
  for (const machine of ['local-a', 'local-b']) {
    const row = new RegExp(`^\\| jsmn \\| ${machine} \\|([^|]+)\\|([^|]+)\\|([^|]+)\\|([^|]+)\\|([^|]+)\\|$`, 'm').exec(demo.output());
    assert.ok(row, demo.output());
    assert.deepEqual(row.slice(1).map((cell) => /!\d+ failed/.exec(cell)?.[0] ?? null), [null, '!3 failed', null, null, null]);
  }
});
