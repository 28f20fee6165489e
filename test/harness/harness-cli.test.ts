// `benchfleet harness` as the agent starts it: a child process with an IPC channel that sends
// every record line as it is written, then `done`; re-executed under taskset and nice, the
// records show what the child got; bad input gets one line naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isHarnessEvent, type HarnessEvent } from '../../shared/harness-contract.ts';
import { sha256Hex } from '../../kernels/corpus.ts';

const BIN = fileURLToPath(new URL('../../bin/benchfleet.js', import.meta.url));

interface Finished {
  code: number | null;
  stderr: string;
  stdout: string;
  events: HarnessEvent[];
}

function harness(args: string[], dir: string): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, 'harness', ...args], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') },
  });
  const events: HarnessEvent[] = [];
  let stderr = '';
  let stdout = '';
  child.on('message', (m: unknown) => {
    assert.ok(isHarnessEvent(m), `a well-formed event: ${JSON.stringify(m)}`);
    events.push(m);
  });
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, stdout, events })));
}

const plan = { kernels: ['xxhash32'], arms: ['taskpool-1-batched', 'workers-1-unbatched'], policies: ['pages', 'whole'], rounds: 2, repeats: 2, jobs: 3, seed: 4, schedule: 'interleaved', inputSizes: { xxhash32: 8192 } };

test('over IPC the harness sends each line as written, progress, then done', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-cli-'));
  try {
    const text = JSON.stringify(plan);
    writeFileSync(join(dir, 'plan.json'), text);
    const out = join(dir, 'out');
    const r = await harness(['--plan', join(dir, 'plan.json'), '--out', out, '--machine', 'box-a', '--json'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { samples: number }).samples, 12);
    for (const policy of ['pages', 'whole'] as const) {
      const lines = readFileSync(join(out, `${policy}.jsonl`), 'utf8').trimEnd().split('\n');
      assert.equal(lines.length, 7);
      const sent = r.events.flatMap((e) => (e.type === 'record' && e.policy === policy ? [e] : []));
      assert.deepEqual(sent.map((e) => e.seq), [0, 1, 2, 3, 4, 5, 6]);
      assert.deepEqual(sent.map((e) => e.line), lines);
      const env = JSON.parse(lines[0] ?? '{}') as { machine: string; planSha256: string };
      assert.equal(env.machine, 'box-a');
      assert.equal(env.planSha256, sha256Hex(text));
    }
    assert.deepEqual(r.events.filter((e) => e.type === 'progress').map((e) => (e.type === 'progress' ? e.done : 0)), Array.from({ length: 12 }, (_, i) => i + 1));
    assert.deepEqual(r.events.at(-1), { type: 'done', samples: 12 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with --cpus and --nice the harness re-executes itself and records the affinity and niceness it got', { skip: process.platform !== 'linux' || cpus().length < 2 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-cli-iso-'));
  try {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ ...plan, arms: ['taskpool-1-unbatched'], policies: ['checkpoint'], rounds: 1 }));
    const out = join(dir, 'out');
    const r = await harness(['--plan', join(dir, 'plan.json'), '--out', out, '--cpus', '0', '--nice', '3', '--heap-mb', '256'], dir);
    assert.equal(r.code, 0, r.stderr);
    const env = JSON.parse(readFileSync(join(out, 'checkpoint.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { affinity: number[]; niceness: number; heapCapMb: number };
    assert.deepEqual([env.affinity, env.niceness, env.heapCapMb], [[0], 3, 256]);
    assert.deepEqual(r.events.at(-1), { type: 'done', samples: 2 }, 'events pass through the re-executing parent');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad plan gets one line naming the field, a failed event and exit code 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-cli-bad-'));
  try {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ ...plan, rounds: 0 }));
    const r = await harness(['--plan', join(dir, 'plan.json'), '--out', join(dir, 'out')], dir);
    assert.equal(r.code, 1);
    const line = `${join(dir, 'plan.json')}: plan.rounds must be a positive integer, got 0`;
    assert.equal(r.stderr, `Error [PLAN_INVALID]: ${line}\n`);
    assert.deepEqual(r.events, [{ type: 'failed', message: line }]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
