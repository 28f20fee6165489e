// The per-machine queue with real processes: runs started back to back on one machine wait in
// its queue and run one after the other, each machine's start stated in the report; a queued
// run that is cancelled never reaches the agent.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { createFleet, readJsonLines, startRun, TINY_PLAN, waitForRun, type Fleet } from './fleet-helpers.ts';


let fleet: Fleet;
before(async () => {
  fleet = await createFleet();
  await fleet.startAgent('solo');
});
after(async () => {
  await fleet.stopAll();
});

test('three runs started back to back on one machine: the second and third are queued; the second, cancelled there, never runs; the first and third complete one after the other', async () => {
  const socket = await fleet.control();
  const first = await startRun(socket, TINY_PLAN, ['solo']);
  const second = await startRun(socket, TINY_PLAN, ['solo']);
  const third = await startRun(socket, TINY_PLAN, ['solo']);
  const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
  const placeOf = (runId: string): [string | undefined, number | undefined] => {
    const m = status.runs.find((r) => r.runId === runId)?.machines['solo'];
    return [m?.state, m?.queue];
  };
  assert.deepEqual(placeOf(second.runId), ['queued', 1]);
  assert.deepEqual(placeOf(third.runId), ['queued', 2]);
  unwrap(await request<ControlToCoordinator, 'run:cancel'>(socket, 10_000, 'run:cancel', second.runId));
  socket.close();

  const done = [await waitForRun(fleet, first.runId), await waitForRun(fleet, third.runId), await waitForRun(fleet, second.runId)];
  assert.deepEqual(done.map((r) => r.state), ['completed', 'completed', 'cancelled']);
  const runs = join(fleet.dir, 'coordinator', 'runs');
  const environment = async (runId: string): Promise<Record<string, unknown>> => (await readJsonLines(join(runs, runId, 'solo', 'whole.jsonl')))[0] ?? {};
  const [start1, start3] = [String((await environment(first.runId))['startedAt']), String((await environment(third.runId))['startedAt'])];
  const firstEnded = (JSON.parse(await readFile(join(runs, first.runId, 'run.json'), 'utf8')) as { machines: Record<string, { since: string }> }).machines['solo']?.since ?? '';
  // The third started after the first had ended on the machine: one machine, one run at a time.
  assert.ok(start1 < firstEnded && firstEnded < start3, `first started ${start1} and ended ${firstEnded}; third started ${start3}`);
  assert.deepEqual(await readdir(join(runs, second.runId, 'solo')).then((files) => files.filter((f) => f.endsWith('.jsonl'))), [], 'the cancelled queued run has no records');
  assert.deepEqual(await readdir(join(fleet.dir, 'agents', 'solo', 'runs')).then((ids) => ids.sort()), [first.runId, third.runId].sort(), 'the agent never held the cancelled run');
  assert.match(await readFile(join(runs, third.runId, 'report.md'), 'utf8'), new RegExp(`## Machine starts\\n\\n- solo: started ${start3.replaceAll('.', '\\.')} \\(completed\\)\\n$`));
});
