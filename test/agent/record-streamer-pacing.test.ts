// The agent's record streamer paces its flushes: at a harness's quiet window it sends a run's
// lines only when its last flush began RECORD_SEND_MS (here a 2 s window) ago or more; lines
// written while a batch waits for its answer go with a later flush, not right behind the answer;
// the run's end flushes at once. Against a real coordinator, which must end up holding the
// spool's bytes exactly. The window is measured on a performance.now() the test moves by hand,
// and every wait is for an event (a batch or a probe reaching the coordinator), so a loaded
// machine changes nothing the test sees.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'socket.io';
import { RecordStreamer } from '../../agent/record-streamer.ts';
import { RunSpool } from '../../agent/run-spool.ts';
import { scheduleSamples, type SampleSlot } from '../../agent/harness/schedule.ts';
import { decodeRecordBatch } from '../../shared/protocol/validate.ts';
import { AGENT_NAMESPACE, type BatchProgress, type ControlToCoordinator } from '../../shared/protocol/events.ts';
import { ProgressPacer } from '../../shared/protocol/progress-pacer.ts';
import { request } from '../../shared/protocol/request.ts';
import { startRun } from '../fleet/fleet-helpers.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { environmentLine, sampleLine } from '../helpers/simulated-agent.ts';

const WINDOW_MS = 2000;
const PLAN = { name: 'paced flushes', kernels: ['xxhash32'], arms: ['native', 'workers-1-batched'], policies: ['pages' as const], rounds: 3, repeats: 1, jobs: 2, seed: 11, schedule: 'sequential' as const };

/** The heartbeat the test sends behind the streamer's batches; the coordinator drops it. */
const PROBE = { probe: true };

/**
 * A real coordinator that shows every `records` payload to `onBatch` (which lets it go on with
 * `next`), an agent `name` in a run of PLAN, and the agent's spool for it; close() ends it all.
 * probe() sends a message on the agent's socket and resolves once the coordinator has it: every
 * batch the agent sent before it has then been shown to `onBatch` (one socket keeps its order).
 */
async function startPacedRun(name: string, onBatch: (payload: unknown, next: () => void) => void) {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-paced-'));
  const tc = await startTestCoordinator({ dataDir: join(dir, 'coordinator') });
  const close = async (): Promise<void> => {
    await tc.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const server = (tc.coordinator as unknown as { io: Server }).io;
    let probed: (() => void) | null = null;
    server.of(AGENT_NAMESPACE).on('connection', (socket) => {
      socket.use(([event, payload], next) => {
        if (event === 'agent:heartbeat' && JSON.stringify(payload) === JSON.stringify(PROBE)) return probed?.();
        return event === 'records' ? onBatch(payload, next) : next();
      });
    });
    const agent = await tc.agent(name);
    const probe = (): Promise<void> =>
      new Promise<void>((resolve) => {
        probed = resolve;
        (agent as unknown as { emit(event: string, payload: unknown): void }).emit('agent:heartbeat', PROBE);
      });
    const control = await tc.control();
    const { runId, planSha256 } = await startRun(control, PLAN, [name]);
    const spool = new RunSpool(join(dir, 'agent'));
    await mkdir(spool.outDir(runId), { recursive: true });
    const slots: SampleSlot[] = scheduleSamples({ kernels: PLAN.kernels, arms: PLAN.arms, policies: PLAN.policies, rounds: PLAN.rounds, seed: PLAN.seed, schedule: PLAN.schedule });
    /** The harness's line `seq` of the run's pages file. */
    const line = (seq: number): string => (seq === 0 ? environmentLine(name, 'pages', planSha256, PLAN) : sampleLine(slots[seq - 1] as SampleSlot, seq, PLAN.repeats, PLAN.jobs));
    return { tc, agent, control, runId, spool, slots, line, probe, close };
  } catch (error) {
    await close();
    throw error;
  }
}

test('record lines go out at most once per window at quiet windows, lines written during a flush wait for the next one, and the end flushes at once', async (t: TestContext) => {
  let clock = 0;
  t.mock.method(performance, 'now', () => clock);
  // Every batch as the coordinator receives it; the first one's answer is held back until the test lets it go.
  const received: { fromSeq: number; lines: number }[] = [];
  let answerFirst: () => void = () => undefined;
  let arrived: () => void = () => undefined;
  const firstArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const { tc, agent, runId, spool, line, probe, close } = await startPacedRun('paced', (payload, next) => {
    const batch = decodeRecordBatch(payload);
    received.push({ fromSeq: batch.fromSeq, lines: batch.lines.length });
    if (received.length === 1) {
      answerFirst = next;
      arrived();
    } else next();
  });
  try {
    const streamer = new RecordStreamer(agent, spool, runId, ['pages'], WINDOW_MS);
    let seq = 0;
    // The harness writes a line to the spool, then hands it to the agent.
    const write = async (): Promise<void> => {
      await appendFile(spool.rawPath(runId, 'pages'), `${line(seq)}\n`);
      streamer.add('pages', seq, line(seq));
      seq++;
    };

    await write();
    await write();
    const first = streamer.flushIfDue();
    await firstArrived;
    // While the first batch waits for its answer: a sample, and a quiet window that is not due.
    clock = 50;
    await write();
    await streamer.flushIfDue();
    answerFirst();
    await first;
    await probe();
    assert.deepEqual(received, [{ fromSeq: 0, lines: 2 }], 'the line written during the flush did not follow the answer');
    clock = 300;
    await write();
    await streamer.flushIfDue();
    clock = WINDOW_MS - 1;
    await streamer.flushIfDue();
    await probe();
    assert.equal(received.length, 1, 'a quiet window within the window sends nothing, up to its last millisecond');

    clock = WINDOW_MS;
    await write();
    await streamer.flushIfDue();
    assert.deepEqual(received, [{ fromSeq: 0, lines: 2 }, { fromSeq: 2, lines: 3 }], 'the due window sent every line held back, in one batch');

    // The harness ended: its last line goes at once.
    await write();
    await streamer.flush();
    assert.deepEqual(received, [{ fromSeq: 0, lines: 2 }, { fromSeq: 2, lines: 3 }, { fromSeq: 5, lines: 1 }]);
    assert.equal(streamer.unacknowledged(), 0);
    const stored = await readFile(join(tc.dataDir, 'runs', runId, 'paced', 'pages.jsonl'));
    assert.deepEqual(stored, await readFile(spool.rawPath(runId, 'pages')), 'the coordinator holds the spool byte for byte');
    assert.equal(stored.toString('utf8').split('\n').length - 1, 6);
  } finally {
    await close();
  }
});

test('a progress report the pacer holds rides on the next batch instead of going on its own, and the coordinator shows it', async () => {
  const carried: (BatchProgress | null)[] = [];
  const { agent, control, runId, spool, slots, line, close } = await startPacedRun('carrier', (payload, next) => {
    carried.push(decodeRecordBatch(payload).progress ?? null);
    next();
  });
  try {
    const streamer = new RecordStreamer(agent, spool, runId, ['pages'], 0);
    const onItsOwn: number[] = [];
    const pacer = new ProgressPacer((p) => onItsOwn.push(p.done), 60_000);
    streamer.progressToCarry = () => pacer.take();
    let seq = 0;
    const sample = async (): Promise<void> => {
      await appendFile(spool.rawPath(runId, 'pages'), `${line(seq)}\n`);
      streamer.add('pages', seq, line(seq));
      if (seq > 0) pacer.report({ runId, done: seq, total: slots.length });
      seq++;
    };
    await sample();
    await sample(); // the first report goes at once, on its own
    await sample(); // held by the pacer's window
    await streamer.flush();
    await sample(); // held
    await sample(); // held, replacing it
    await streamer.flush();
    await streamer.flush(); // nothing new
    await sample(); // held, and left for the pacer
    await streamer.flush();
    assert.deepEqual(onItsOwn, [1]);
    assert.deepEqual(carried, [{ done: 2, total: slots.length }, { done: 4, total: slots.length }, { done: 5, total: slots.length }]);
    const status = await request<ControlToCoordinator, 'status'>(control, 5000, 'status');
    assert.ok(status.ok);
    const m = status.value.runs.find((r) => r.runId === runId)?.machines['carrier'];
    assert.deepEqual([m?.done, m?.total, m?.lines['pages']], [5, slots.length, 6]);
    pacer.stop();
  } finally {
    await close();
  }
});
