// A harness whose parent (the agent) dies while the harness is still starting must not run on
// as an orphan holding the machine's timing lock: killed at each point of the harness's
// start-up, and once it measures, the harness is gone within a bounded wait, the lock is free,
// and it took no sample for nobody. The next harness on the machine then runs at once.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireTimingLock, readLockHolder } from '../../agent/harness/timing-lock.ts';
import { isHarnessEvent, type HarnessEvent } from '../../shared/harness-contract.ts';
import { childExecArgv } from '../../shared/ts-runtime.ts';
import { completeLines } from '../helpers/file-waits.ts';
import { BIN, waitForProcessGone } from '../helpers/processes.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

const PARENT = fileURLToPath(new URL('../fixtures/harness-parent.ts', import.meta.url));
const PLAN = { kernels: ['xxhash32', 'crc32'], arms: ['native'], policies: ['whole'], rounds: 3, repeats: 1, jobs: 2, seed: 5, schedule: 'sequential' };
const PLANNED_LINES = 1 + PLAN.kernels.length * PLAN.rounds;
/** Far longer than a healthy harness needs to notice its parent is gone, even on a loaded machine. */
const GONE_WITHIN_MS = 30_000;

const dir = tempDirSync({ after }, 'bf-orphan-');
const planPath = join(dir, 'plan.json');
writeFileSync(planPath, JSON.stringify(PLAN));

/** Start the dying parent at `point`; resolves with the harness's pid once the parent is dead. */
async function killParentAt(point: string, out: string, lockFile: string): Promise<number> {
  const parent = spawn(process.execPath, [...childExecArgv(), PARENT, point, planPath, out, lockFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  parent.stdout.on('data', (c: Buffer) => (output += c.toString()));
  parent.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => parent.on('close', (_code, s) => resolve(s)));
  assert.equal(signal, 'SIGKILL', `the parent died of its own SIGKILL at "${point}"; it printed:\n${output}`);
  const pid = /harness pid (\d+)/.exec(output)?.[1];
  assert.ok(pid, `the parent printed its harness's pid:\n${output}`);
  return Number(pid);
}

function recordFiles(out: string): string[] {
  try {
    return readdirSync(out);
  } catch {
    return [];
  }
}

// The kill points are independent (each its own folder and lock): they run side by side.
describe('a harness whose parent dies', { concurrency: true }, () => {
  for (const point of ['spawned', 'exec'] as const) {
    test(`a harness whose parent is SIGKILLed ${point === 'spawned' ? 'the instant it is spawned' : 'while Node loads its modules'} exits without taking the timing lock or a sample`, { timeout: 60_000 }, async () => {
      const out = join(dir, point);
      const lockFile = join(dir, `${point}.lock`);
      const pid = await killParentAt(point, out, lockFile);
      await waitForProcessGone(pid, GONE_WITHIN_MS, `the harness orphaned at "${point}"`);
      assert.equal(readLockHolder(lockFile), null, 'the timing lock is free');
      assert.deepEqual(recordFiles(out), [], 'the orphan wrote no record');
    });
  }

  test('a harness waiting for the timing lock when its parent is SIGKILLed ends its wait and never takes the lock', { timeout: 60_000 }, async () => {
    const out = join(dir, 'lock-wait');
    const lockFile = join(dir, 'lock-wait.lock');
    const held = await acquireTimingLock({ what: 'the test, holding the machine', file: lockFile, limitSeconds: 0 });
    try {
      const pid = await killParentAt('lock-wait', out, lockFile);
      await waitForProcessGone(pid, GONE_WITHIN_MS, 'the harness waiting for the lock');
      const holder = readLockHolder(lockFile);
      assert.ok(holder !== null && typeof holder === 'object' && holder.pid === process.pid, 'the lock is still the test\'s, never the orphan\'s');
      assert.deepEqual(recordFiles(out), [], 'the orphan wrote no record');
    } finally {
      held.release();
    }
    assert.equal(readLockHolder(lockFile), null);
  });

  test('a harness whose parent is SIGKILLed after the first sample stops with whole lines, frees the lock, and the next harness resumes the run at once', { timeout: 90_000 }, async () => {
    const out = join(dir, 'first-sample');
    const lockFile = join(dir, 'first-sample.lock');
    const pid = await killParentAt('first-sample', out, lockFile);
    await waitForProcessGone(pid, GONE_WITHIN_MS, 'the harness measuring for a dead parent');
    assert.equal(readLockHolder(lockFile), null, 'the timing lock is free');
    const text = readFileSync(join(out, 'whole.jsonl'), 'utf8');
    assert.ok(text.endsWith('\n'), 'no torn line');
    const written = completeLines(text).length;
    assert.ok(written >= 2 && written < PLANNED_LINES, `the harness stopped with its parent: ${written} of ${PLANNED_LINES} lines`);

    // The restarted agent's harness: --lock-wait 0, so a lock still held fails it at once.
    const child = spawn(process.execPath, [BIN, 'harness', '--plan', planPath, '--out', out, '--lock-file', lockFile, '--lock-wait', '0', '--resume', '--json'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const events: HarnessEvent[] = [];
    child.on('message', (m: unknown) => {
      if (isHarnessEvent(m)) events.push(m);
    });
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(code, 0, stderr);
    assert.equal(events.at(-1)?.type, 'done');
    const samples = completeLines(readFileSync(join(out, 'whole.jsonl'), 'utf8')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r['type'] === 'sample');
    assert.equal(new Set(samples.map((r) => `${String(r['kernel'])}/${String(r['round'])}`)).size, PLANNED_LINES - 1, 'every (kernel, round) measured');
  });
});
