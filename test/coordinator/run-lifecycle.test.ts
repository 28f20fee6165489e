// The run lifecycle without processes or sockets: every legal transition, every illegal one
// refused, state saved before it is announced, copies instead of live objects, reload from
// disk (today's schema and the version-0 run.json of earlier coordinators), and the machines'
// queues (first come, first served, exactly as saved).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { RunStore } from '../../store/run-store.ts';
import { MACHINE_STATES, type MachineState, type StoredRun } from '../../store/run-schema.ts';
import { moveMachine, moveRun } from '../../coordinator/runs/run-transitions.ts';
import { tempDir } from '../helpers/temp-dir.ts';

let ids = 0;
const newId = (): string => `20261201-000000-t${String(++ids).padStart(5, '0')}`;

async function fresh(): Promise<{ store: RunStore; life: RunLifecycle; announced: RunSummary[]; onDisk: string[] }> {
  const store = new RunStore(await tempDir({ after }, 'benchfleet-life-'));
  const announced: RunSummary[] = [];
  const onDisk: string[] = [];
  const life = new RunLifecycle(store, (run) => {
    announced.push(run);
    // What is announced must already be what run.json says: read it synchronously here.
    onDisk.push((JSON.parse(readFileSyncText(join(store.runDir(run.runId), 'run.json'))) as { state: string }).state);
  });
  await life.load();
  return { store, life, announced, onDisk };
}

const readFileSyncText = (path: string): string => readFileSync(path, 'utf8');

async function running(life: RunLifecycle, machines = ['a', 'b']): Promise<string> {
  const [run] = await life.createSeries('{}', 'f'.repeat(64), machines, 1, newId);
  const runId = (run as RunSummary).runId;
  for (const m of machines) await life.machineAssigned(runId, m);
  for (const m of machines) await life.machineStarted(runId, m);
  await life.assignmentsAnswered(runId);
  return runId;
}

test('a run goes queued, assigned, running, delivering, completed, saving each state before announcing it', async () => {
  const { life, announced, onDisk } = await fresh();
  const runId = await running(life);
  await life.progress(runId, 'a', 3, 12);
  await life.progress(runId, 'a', 12, 12);
  assert.equal(life.get(runId).machines['a']?.state, 'delivering');
  await life.machineFinished(runId, 'a', 'completed', null, { lines: { whole: 13 }, samples: 12 });
  await life.machineFinished(runId, 'b', 'completed', null, { lines: { whole: 13 }, samples: 12 });
  assert.equal(life.get(runId).state, 'delivering');
  await life.finish(runId);
  const final = life.get(runId);
  assert.equal(final.state, 'completed');
  assert.deepEqual(final.machines['a'], { state: 'completed', done: 12, total: 12, lines: { whole: 13 }, message: null });
  // Progress without a transition (3 of 12) is not a saved change: the transition that follows it announces it.
  assert.deepEqual(announced.map((r) => r.state), ['queued', 'assigned', 'assigned', 'assigned', 'assigned', 'running', 'running', 'running', 'delivering', 'completed']);
  assert.deepEqual(onDisk, announced.map((r) => r.state), 'every announced state was on disk first');
});

test('a completed machine counts the samples the analysis uses, not its lines (a resumed run holds more lines than samples)', async () => {
  const { life } = await fresh();
  const runId = await running(life, ['a']);
  await life.progress(runId, 'a', 12, 12);
  // 12 samples in 2 segments: 2 environment rows and 3 superseded lines of a redone round make 17 lines.
  const after = await life.machineFinished(runId, 'a', 'completed', null, { lines: { whole: 17 }, samples: 12 });
  assert.deepEqual(after.machines['a'], { state: 'completed', done: 12, total: 12, lines: { whole: 17 }, message: null });
});

test('a machine that has not taken its plan is listed as awaiting it, from when it was assigned, until it starts', async (t) => {
  let clock = Date.parse('2026-12-01T10:00:00.000Z');
  const store = new RunStore(await tempDir(t, 'benchfleet-life-'));
  const life = new RunLifecycle(store, () => undefined, () => new Date(clock));
  const [run] = await life.createSeries('{}', 'f'.repeat(64), ['a', 'b'], 1, newId);
  const runId = (run as RunSummary).runId;
  assert.deepEqual(life.awaitingPlan('a'), [], 'a queued machine awaits its turn, not a plan');
  clock += 60_000;
  for (const m of ['a', 'b']) await life.machineAssigned(runId, m);
  clock += 60_000;
  await life.machineStarted(runId, 'b');
  assert.deepEqual(life.awaitingPlan('a'), [runId]);
  assert.deepEqual(life.awaitingPlan('b'), []);
  assert.equal(life.machineSince(runId, 'a'), '2026-12-01T10:01:00.000Z');
  assert.equal(life.machineSince(runId, 'b'), '2026-12-01T10:02:00.000Z');
  // A reloaded store (the coordinator restarted) still knows.
  const reloaded = new RunLifecycle(store, () => undefined);
  await reloaded.load();
  assert.deepEqual(reloaded.awaitingPlan('a'), [runId]);
  assert.equal(reloaded.machineSince(runId, 'a'), '2026-12-01T10:01:00.000Z');
  await life.cancel(runId, 'stop');
  assert.deepEqual(life.awaitingPlan('a'), [], 'a cancelled run awaits nothing');
});

test('every illegal machine transition is refused and changes nothing', async () => {
  const { life } = await fresh();
  const runId = await running(life, ['a']);
  await life.machineFinished(runId, 'a', 'completed', null, { lines: {}, samples: 0 });
  // From a terminal state nothing moves; the named methods that would move it are refused or no-ops.
  await assert.rejects(life.assignmentRefused(runId, 'a', 'x'), { code: 'ILLEGAL_TRANSITION', message: `run ${runId}, machine a: cannot go from completed to failed` });
  const before = life.get(runId);
  await life.progress(runId, 'a', 1, 2);
  await life.machineFinished(runId, 'a', 'failed', 'late', { lines: {}, samples: 0 });
  await life.machineExpired(runId, 'a', 'gone');
  assert.deepEqual(life.get(runId), before, 'an ended machine keeps its state whatever arrives late');
  await assert.rejects(life.machineStarted('20991231-000000-nosuch', 'a'), { code: 'UNKNOWN_RUN' });
  await assert.rejects(life.progress(runId, 'zz', 1, 2).then(() => life.assignmentRefused(runId, 'zz', 'x')), { code: 'UNKNOWN_MACHINE' });
});

test('the transition tables of machines and runs allow exactly the documented moves', async () => {
  // Drive one machine into each state, then try every target through the generic mover.
  const legal: Record<MachineState, MachineState[]> = {
    // failed: only failRun, for a run whose plan.json the coordinator lost (docs/protocol.md).
    queued: ['assigned', 'failed', 'cancelled'],
    assigned: ['running', 'failed', 'cancelled'],
    running: ['delivering', 'completed', 'failed', 'cancelled'],
    delivering: ['completed', 'failed', 'cancelled'],
    completed: [],
    failed: [],
    cancelled: [],
  };
  const { life } = await fresh();
  for (const from of MACHINE_STATES) {
    for (const to of MACHINE_STATES) {
      if (from === to) continue;
      const run = { runId: 'r', machines: { a: { state: from, done: 0, total: 0, lines: {}, message: null, since: '' } } };
      const attempt = (): void => moveMachine(run as unknown as StoredRun, 'a', to, '');
      if (legal[from].includes(to)) {
        attempt();
        assert.equal(run.machines.a.state, to);
      } else assert.throws(attempt, { code: 'ILLEGAL_TRANSITION', message: `run r, machine a: cannot go from ${from} to ${to}` });
    }
  }
  const runLegal: Record<MachineState, MachineState[]> = {
    queued: ['assigned', 'delivering'],
    assigned: ['running', 'delivering'],
    running: ['delivering'],
    delivering: ['completed', 'failed', 'cancelled'],
    completed: [],
    failed: [],
    cancelled: [],
  };
  for (const from of MACHINE_STATES) {
    for (const to of MACHINE_STATES) {
      if (from === to) continue;
      const run = { runId: 'r', state: from };
      const attempt = (): void => moveRun(run as unknown as StoredRun, to);
      if (runLegal[from].includes(to)) {
        attempt();
        assert.equal(run.state, to);
      } else assert.throws(attempt, { code: 'ILLEGAL_TRANSITION', message: `run r: cannot go from ${from} to ${to}` });
    }
  }
  await assert.rejects(life.finish('20991231-000000-nosuch'), { code: 'UNKNOWN_RUN' });
});

test('finishing a run that is not delivering is refused', async () => {
  const { life } = await fresh();
  const runId = await running(life, ['a']);
  await assert.rejects(life.finish(runId), { code: 'ILLEGAL_TRANSITION', message: `run ${runId}: cannot finish from running` });
});

test('a cancel is recorded as cancelled, also when the agent then reports a harness failure, and the queued runs behind it go too', async () => {
  const { life } = await fresh();
  const series = await life.createSeries('{}', 'f'.repeat(64), ['a'], 2, newId);
  const [first, second] = series.map((r) => r.runId) as [string, string];
  await life.machineAssigned(first, 'a');
  await life.machineStarted(first, 'a');
  const changed = await life.cancel(first, 'cancelled by a control client');
  assert.deepEqual(changed.map((r) => [r.runId, r.machines['a']?.state]), [[first, 'cancelled'], [second, 'cancelled']]);
  assert.throws(() => life.checkWantsRecords(first, 'a'), { code: 'RUN_NOT_WANTED', message: `run ${first} takes no more records from a: it is cancelled (cancelled by a control client)` });
  await life.machineFinished(first, 'a', 'failed', 'harness failed (SIGTERM)', { lines: {}, samples: 0 });
  assert.equal(life.get(first).machines['a']?.state, 'cancelled');
  assert.equal(life.get(first).state, 'delivering');
  assert.equal((await life.finish(first)).state, 'cancelled');
  assert.equal((await life.finish(second)).state, 'cancelled');
});

test('records are refused for completed, failed and cancelled machines and for queued runs', async () => {
  const { life } = await fresh();
  const runId = await running(life, ['a', 'b', 'c']);
  life.checkWantsRecords(runId, 'a');
  await life.machineFinished(runId, 'a', 'completed', null, { lines: {}, samples: 0 });
  await life.machineExpired(runId, 'b', 'gone for 48 h');
  assert.throws(() => life.checkWantsRecords(runId, 'a'), { code: 'RUN_NOT_WANTED' });
  assert.throws(() => life.checkWantsRecords(runId, 'b'), { code: 'RUN_NOT_WANTED', message: /failed \(gone for 48 h\)/ });
  assert.throws(() => life.checkWantsRecords(runId, 'nope'), { code: 'UNKNOWN_MACHINE' });
  const [queued] = await life.createSeries('{}', 'f'.repeat(64), ['q'], 1, newId);
  assert.throws(() => life.checkWantsRecords((queued as RunSummary).runId, 'q'), { code: 'RUN_NOT_WANTED' });
});

test('runs on a busy machine queue first come, first served, each with its place, and the queue moves up as one leaves', async () => {
  const { life, announced } = await fresh();
  // Two starts that come together: both are taken, in the order they came.
  const [[first], [second]] = (await Promise.all([life.createSeries('{}', 'f'.repeat(64), ['a'], 1, newId), life.createSeries('{}', 'f'.repeat(64), ['a', 'b'], 1, newId)])) as [[RunSummary], [RunSummary]];
  assert.equal(life.nextInQueue('a'), first.runId);
  assert.equal(life.nextInQueue('b'), second.runId);
  assert.deepEqual(life.queuedMachines(), ['a', 'b']);
  assert.equal(life.get(first.runId).machines['a']?.queue, 1);
  assert.equal(life.get(second.runId).machines['a']?.queue, 2);
  assert.equal(life.get(second.runId).machines['b']?.queue, 1);
  // b is free: it starts its part of the second run while a still waits for the first.
  await life.machineAssigned(second.runId, 'b');
  assert.equal(life.get(second.runId).state, 'assigned');
  assert.deepEqual(Object.values(life.get(second.runId).machines).map((m) => [m.state, m.queue]), [['queued', 2], ['assigned', undefined]]);
  announced.length = 0;
  await life.machineAssigned(first.runId, 'a');
  assert.equal(life.activeRun('a'), first.runId);
  assert.equal(life.nextInQueue('a'), second.runId);
  // Leaving the queue announces the run that moved up, with its new place.
  assert.deepEqual(announced.map((r) => [r.runId, r.machines['a']?.state, r.machines['a']?.queue]), [[first.runId, 'assigned', undefined], [second.runId, 'queued', 1]]);
  // Assigning is per machine and only from the queue.
  assert.equal((await life.machineAssigned(first.runId, 'a')).machines['a']?.state, 'assigned', 'a second assignment changes nothing');
  await life.cancel(second.runId, 'not wanted');
  assert.equal(life.nextInQueue('a'), null, 'a cancelled run leaves the queue');
  assert.equal((await life.machineAssigned(second.runId, 'a')).machines['a']?.state, 'cancelled');
});

test('the queues come back exactly after a restart, runs saved before the queues taking places by creation time', async () => {
  const { store, life } = await fresh();
  const series = await life.createSeries('{}', 'f'.repeat(64), ['a'], 3, newId);
  const other = await life.createSeries('{}', 'f'.repeat(64), ['a'], 1, newId);
  const ids = [...series, ...other].map((r) => r.runId);
  const again = new RunLifecycle(store, () => undefined);
  await again.load();
  assert.deepEqual(ids.map((id) => again.get(id).machines['a']?.queue), [1, 2, 3, 4]);
  // A run.json without seq (an older coordinator) is placed after the others; then new runs follow it.
  const runFile = join(store.runDir(ids[0] as string), 'run.json');
  const saved = JSON.parse(await readFile(runFile, 'utf8')) as Record<string, unknown>;
  delete saved['seq'];
  await writeFile(runFile, JSON.stringify(saved));
  const older = new RunLifecycle(store, () => undefined);
  await older.load();
  assert.deepEqual(ids.map((id) => older.get(id).machines['a']?.queue), [4, 1, 2, 3]);
  const [later] = await older.createSeries('{}', 'f'.repeat(64), ['a'], 1, newId);
  assert.equal((later as RunSummary).machines['a']?.queue, 5);
});

test('readers get copies: changing one does not change the run', async () => {
  const { life } = await fresh();
  const runId = await running(life, ['a']);
  const copy = life.get(runId);
  copy.state = 'completed';
  (copy.machines['a'] as { state: string }).state = 'completed';
  const listed = life.list()[0] as RunSummary;
  listed.machines = {};
  assert.equal(life.get(runId).state, 'running');
  assert.equal(life.get(runId).machines['a']?.state, 'running');
});

test('a restarted coordinator reloads every run as it was saved', async () => {
  const { store, life } = await fresh();
  const runId = await running(life, ['a', 'b']);
  await life.progress(runId, 'a', 5, 10);
  await life.cancel(runId, 'stop');
  const again = new RunLifecycle(store, () => undefined);
  await again.load();
  assert.deepEqual(again.get(runId), life.get(runId));
  assert.equal((JSON.parse(await readFile(join(store.runDir(runId), 'run.json'), 'utf8')) as { schema: number }).schema, 1);
});

test('a version-0 run.json (before the lifecycle) still loads, and a broken one is named and skipped', async () => {
  const { store } = await fresh();
  const v0 = (runId: string, state: string, machines: Record<string, object>): object => ({ runId, state, after: null, createdAt: '2026-11-30T03:15:02.000Z', planSha256: 'a'.repeat(64), machines });
  const files: Record<string, object | string> = {
    '20261130-031502-aaaaaa': v0('20261130-031502-aaaaaa', 'completed', { ryzen: { state: 'completed', done: 42, total: 42, lines: { whole: 43 }, message: null } }),
    '20261130-031502-bbbbbb': v0('20261130-031502-bbbbbb', 'running', { ryzen: { state: 'running', done: 1, total: 42, lines: {}, message: null }, m2: { state: 'failed', done: 0, total: 0, lines: {}, message: 'assignment refused' } }),
    '20261130-031502-cccccc': v0('20261130-031502-cccccc', 'queued', { ryzen: { state: 'assigned', done: 0, total: 0, lines: {}, message: null } }),
    '20261130-031502-dddddd': v0('20261130-031502-dddddd', 'running', { ryzen: { state: 'completed', done: 1, total: 1, lines: {}, message: null } }),
    '20261130-031502-eeeeee': '{ "runId": "20261130-031502-eeeeee", "state": "exploded"',
    '20261130-031502-ffffff': v0('20261130-031502-ffffff', 'sideways', {}),
  };
  for (const [runId, content] of Object.entries(files)) {
    await mkdir(store.runDir(runId), { recursive: true });
    await writeFile(join(store.runDir(runId), 'run.json'), typeof content === 'string' ? content : JSON.stringify(content));
  }
  const life = new RunLifecycle(store, () => undefined);
  const skipped: string[] = [];
  await life.load((runId, problem) => skipped.push(`${runId}: ${problem}`));
  assert.equal(life.get('20261130-031502-aaaaaa').state, 'completed');
  assert.deepEqual(life.get('20261130-031502-aaaaaa').machines['ryzen'], { state: 'completed', done: 42, total: 42, lines: { whole: 43 }, message: null });
  assert.equal(life.get('20261130-031502-bbbbbb').state, 'running');
  assert.equal(life.get('20261130-031502-cccccc').machines['ryzen']?.state, 'queued', 'machines of a queued version-0 run are queued');
  assert.equal(life.get('20261130-031502-dddddd').state, 'delivering', 'a version-0 run whose machines all ended is due for finalizing');
  assert.equal(life.has('20261130-031502-eeeeee'), false);
  assert.deepEqual(skipped, [`20261130-031502-ffffff: ${join(store.runDir('20261130-031502-ffffff'), 'run.json')}.state: must be one of queued, assigned, running, delivering, completed, failed, cancelled`]);
  // It goes on from there under the new schema.
  await life.machineFinished('20261130-031502-bbbbbb', 'ryzen', 'completed', null, { lines: { whole: 43 }, samples: 42 });
  assert.equal(life.get('20261130-031502-bbbbbb').state, 'delivering');
});

/** A real store that counts its saves and can hold one in flight until released. */
class WatchedStore extends RunStore {
  saves = 0;
  private held: { entered: () => void; release: Promise<void> } | null = null;

  /** The next save waits for `release`; resolves once it has begun. */
  holdNext(release: Promise<void>): Promise<void> {
    return new Promise((entered) => (this.held = { entered, release }));
  }

  override async saveRun(run: Parameters<RunStore['saveRun']>[0]): Promise<void> {
    this.saves++;
    const held = this.held;
    this.held = null;
    if (held) {
      held.entered();
      await held.release;
    }
    await super.saveRun(run);
  }
}

test('progress is not run state: a thousand progress events write no run.json, every copy shows the latest at once, and followers get one coalesced announcement', async (t) => {
  const store = new WatchedStore(await tempDir(t, 'benchfleet-life-'));
  let announced: RunSummary[] = [];
  let onAnnounce = (): void => undefined;
  const life = new RunLifecycle(store, (run) => {
    announced.push(run);
    onAnnounce();
  });
  const runId = await running(life, ['a', 'b']);
  const saves = store.saves;
  announced = [];
  const coalesced = new Promise<void>((resolve) => (onAnnounce = resolve));
  for (let i = 1; i <= 1000; i++) await life.progress(runId, 'a', i, 2000, i < 1000 ? 'waiting for the timing lock' : null);
  assert.equal(store.saves, saves, 'no save for progress without a transition');
  assert.deepEqual(life.get(runId).machines['a'], { state: 'running', done: 1000, total: 2000, lines: {}, message: null });
  await coalesced;
  assert.equal(announced.length, 1);
  assert.equal(announced[0]?.machines['a']?.done, 1000);
  // The next transition saves the progress with it.
  await life.machineExpired(runId, 'b', 'gone');
  const saved = JSON.parse(await readFile(join(store.runDir(runId), 'run.json'), 'utf8')) as { machines: Record<string, { done: number; total: number }> };
  assert.deepEqual([saved.machines['a']?.done, saved.machines['a']?.total], [1000, 2000]);
  await life.close();
});

test('a line count written while a save of the run is in flight is kept, in copies and in the next save (it used to be lost with the older copy)', async (t) => {
  const store = new WatchedStore(await tempDir(t, 'benchfleet-life-'));
  const life = new RunLifecycle(store, () => undefined);
  const runId = await running(life, ['a', 'b']);
  let release = (): void => undefined;
  const entered = store.holdNext(new Promise<void>((r) => (release = r)));
  const expiring = life.machineExpired(runId, 'b', 'gone');
  await entered;
  life.linesWritten(runId, 'a', 'pages', 46);
  release();
  await expiring;
  assert.deepEqual(life.get(runId).machines['a']?.lines, { pages: 46 });
  await life.cancel(runId, 'stop');
  const saved = JSON.parse(await readFile(join(store.runDir(runId), 'run.json'), 'utf8')) as { machines: Record<string, { lines: Record<string, number> }> };
  assert.deepEqual(saved.machines['a']?.lines, { pages: 46 });
});
