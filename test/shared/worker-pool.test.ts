// The worker pool (shared/worker-pool.ts) with real worker threads running
// test/fixtures/pool-worker.ts: jobs answered on at most the threads asked for, errors that
// keep their code across the thread boundary, a thread's death failing what the pool's rule
// says, pinned jobs, and a close that leaves no thread behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { BenchfleetError } from '../../shared/errors.ts';
import { WorkerPool, type WorkerPoolOptions } from '../../shared/worker-pool.ts';
import { storageErrorCode } from '../../store/storage-error.ts';
import type { PoolTestAnswer, PoolTestJob } from '../fixtures/pool-worker.ts';

const ENTRY = new URL('../fixtures/pool-worker.ts', import.meta.url);
const stopped = (code: number) => `a test worker stopped (exit code ${code}) before answering`;

function pool(options: Partial<WorkerPoolOptions<PoolTestJob>> = {}): WorkerPool<PoolTestJob, PoolTestAnswer> {
  return new WorkerPool<PoolTestJob, PoolTestAnswer>({ entry: ENTRY, threads: 2, idle: 'keep', death: 'its-jobs', stopped, ...options });
}

/** Every worker thread this process starts while `body` runs. */
async function watchingThreads<T>(body: (started: Worker[]) => Promise<T>): Promise<T> {
  const started: Worker[] = [];
  const seen = (worker: Worker) => started.push(worker);
  process.on('worker', seen);
  try {
    return await body(started);
  } finally {
    process.off('worker', seen);
  }
}

/** Resolves once every one of `workers` has exited. */
function allExited(workers: readonly Worker[]): Promise<unknown> {
  return Promise.all(workers.map((w) => (w.threadId === -1 ? Promise.resolve() : once(w, 'exit'))));
}

/** A gate a 'hold' job waits at, and the call that opens it. */
function gate(): { gate: Int32Array; open: () => void } {
  const shared = new Int32Array(new SharedArrayBuffer(4));
  return {
    gate: shared,
    open: () => {
      Atomics.store(shared, 0, 1);
      Atomics.notify(shared, 0);
    },
  };
}

test('nine jobs on three threads are all answered, by exactly three threads, which end once no job is left', async () => {
  await watchingThreads(async (started) => {
    const jobs = pool({ threads: 3, idle: 'end' });
    const answers = await Promise.all(Array.from({ length: 9 }, (_, n) => jobs.run({ kind: 'square', n })));
    assert.deepEqual(
      answers.map((a) => a.value),
      [0, 1, 4, 9, 16, 25, 36, 49, 64],
    );
    assert.equal(started.length, 3);
    assert.equal(new Set(answers.map((a) => a.threadId)).size, 3);
    // Nothing waits: the threads end by themselves, without close().
    assert.equal(jobs.threads, 0);
    await allExited(started);
  });
});

test("a job's thrown BenchfleetError reaches the caller with its code, message, exit code and cause; any other error as INTERNAL with its code in the cause", async () => {
  const jobs = pool({ threads: 1 });
  try {
    await assert.rejects(jobs.run({ kind: 'throw-benchfleet' }), (error: unknown) => {
      assert.ok(error instanceof BenchfleetError);
      assert.equal(error.code, 'UNKNOWN_RUN');
      assert.equal(error.message, 'no run r-9 on this coordinator');
      assert.equal(error.exitCode, 3);
      return true;
    });
    await assert.rejects(jobs.run({ kind: 'throw-disk' }), (error: unknown) => {
      assert.ok(error instanceof BenchfleetError);
      assert.equal(error.code, 'FILE_UNREADABLE');
      assert.equal((error.cause as Error).message, 'ENOSPC: no space left on device, write');
      // What finalization's retry looks for.
      assert.equal(storageErrorCode(error), 'ENOSPC');
      return true;
    });
    await assert.rejects(jobs.run({ kind: 'throw-plain' }), (error: unknown) => {
      assert.ok(error instanceof BenchfleetError);
      assert.equal(error.code, 'INTERNAL');
      assert.equal(error.message, 'EIO: i/o error, read');
      assert.equal(storageErrorCode(error), 'EIO');
      return true;
    });
    // The thread that threw goes on with the next job.
    const first = await jobs.run({ kind: 'square', n: 3 });
    assert.deepEqual([first.value, jobs.threads], [9, 1]);
  } finally {
    await jobs.close();
  }
});

test("a thread that exits fails only the job it held; the others are answered, and a new thread takes the next job", async () => {
  await watchingThreads(async (started) => {
    const jobs = pool({ threads: 2 });
    const held = gate();
    try {
      const holding = jobs.run({ kind: 'hold', gate: held.gate });
      await assert.rejects(jobs.run({ kind: 'exit', code: 7 }), { code: 'INTERNAL', message: 'a test worker stopped (exit code 7) before answering' });
      assert.equal(started.length, 2);
      // The held thread is busy: the next job starts a third thread.
      const next = await jobs.run({ kind: 'square', n: 5 });
      assert.equal(next.value, 25);
      assert.equal(started.length, 3);
      held.open();
      const answer = await holding;
      assert.equal(answer.value, null);
      assert.notEqual(answer.threadId, next.threadId);
    } finally {
      held.open();
      await jobs.close();
    }
    await allExited(started);
  });
});

test("under 'every-job' a thread's death fails every job of the pool, sent or waiting, with its error", async () => {
  const jobs = pool({ threads: 2, death: 'every-job' });
  const held = gate();
  const outcomes = new Map<string, string>();
  const note = (name: string, answer: Promise<PoolTestAnswer>) =>
    answer.then(
      () => outcomes.set(name, 'answered'),
      (error: Error) => outcomes.set(name, error.message),
    );
  try {
    // Two threads: the first holds, the second exits; the third job waits for a free thread.
    const holding = note('held', jobs.run({ kind: 'hold', gate: held.gate }));
    const exiting = jobs.run({ kind: 'exit', code: 3 });
    const waiting = note('waiting', jobs.run({ kind: 'square', n: 2 }));
    await assert.rejects(exiting, { code: 'INTERNAL', message: stopped(3) });
    // Failed with the exit, not later: the held job's thread is still held at its gate.
    assert.deepEqual(Object.fromEntries(outcomes), { held: stopped(3), waiting: stopped(3) });
    await Promise.all([holding, waiting]);
  } finally {
    held.open();
    await jobs.close();
  }
});

test('an error thrown outside any job ends its thread and fails the job it held with that error', async () => {
  const jobs = pool({ threads: 1 });
  try {
    await assert.rejects(jobs.run({ kind: 'uncaught' }), { name: 'TypeError', message: 'the worker broke outside any job' });
    assert.equal((await jobs.run({ kind: 'square', n: 4 })).value, 16);
  } finally {
    await jobs.close();
  }
});

test('a job pinned to the thread that ran an earlier one runs there; pinned to a thread that has ended, it fails', async () => {
  const jobs = pool({ threads: 2 });
  try {
    await jobs.prepare();
    jobs.start();
    assert.equal(jobs.threads, 2);
    const [a, b] = await Promise.all([jobs.runTracked({ kind: 'keep', value: 'a' }), jobs.runTracked({ kind: 'keep', value: 'b' })]);
    assert.notEqual(a.thread, b.thread);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await Promise.all([jobs.run({ kind: 'kept' }, b.thread), jobs.run({ kind: 'kept' }, a.thread)])).map((x) => x.value), ['b', 'a']);
    }
  } finally {
    await jobs.close();
  }
  const ending = pool({ threads: 1, idle: 'end' });
  const { thread } = await ending.runTracked({ kind: 'keep', value: 'gone' });
  await assert.rejects(ending.run({ kind: 'kept' }, thread), { code: 'INTERNAL', message: 'a job was pinned to a thread that has ended' });
});

test('close waits for the jobs given, then ends every thread; a closed pool takes no job', async () => {
  await watchingThreads(async (started) => {
    const jobs = pool({ threads: 2 });
    await jobs.prepare();
    jobs.start();
    const held = gate();
    const order: string[] = [];
    const holding = jobs.run({ kind: 'hold', gate: held.gate }).then(() => order.push('job answered'));
    const closing = jobs.close().then(() => order.push('closed'));
    // Still there while the job is open.
    assert.equal(jobs.threads, 2);
    await assert.rejects(jobs.run({ kind: 'square', n: 1 }), { code: 'INTERNAL', message: 'a job was given to a closed worker pool' });
    held.open();
    await Promise.all([holding, closing]);
    assert.deepEqual(order, ['job answered', 'closed']);
    assert.equal(started.length, 2);
    assert.equal(jobs.threads, 0);
    // Ended, not merely forgotten: every thread has exited by the time close resolves.
    assert.deepEqual(
      started.map((w) => w.threadId),
      [-1, -1],
    );
  });
});

test('a thread that dies while the pool closes leaves the jobs given before to a new thread, and close still ends every thread', { timeout: 60_000 }, async () => {
  await watchingThreads(async (started) => {
    const jobs = pool({ threads: 1 });
    const exiting = jobs.run({ kind: 'exit', code: 5 });
    const waiting = jobs.run({ kind: 'square', n: 7 });
    const closing = jobs.close();
    await assert.rejects(exiting, { message: stopped(5) });
    assert.equal((await waiting).value, 49);
    await closing;
    assert.equal(started.length, 2);
    assert.deepEqual(
      started.map((w) => w.threadId),
      [-1, -1],
    );
  });
});

test('jobs with no limit a thread spread evenly over the threads: six held jobs on two threads, three each', async () => {
  const jobs = pool({ threads: 2, jobsPerThread: (job) => (job.kind === 'hold' ? Number.POSITIVE_INFINITY : 1) });
  const held = gate();
  try {
    await jobs.prepare();
    jobs.start();
    const answers = Array.from({ length: 6 }, () => jobs.run({ kind: 'hold', gate: held.gate }));
    // All sent before the gate opens, each to the thread that held the fewest.
    held.open();
    const byThread = new Map<number, number>();
    for (const answer of await Promise.all(answers)) byThread.set(answer.threadId, (byThread.get(answer.threadId) ?? 0) + 1);
    assert.deepEqual([...byThread.values()], [3, 3]);
  } finally {
    held.open();
    await jobs.close();
  }
});
