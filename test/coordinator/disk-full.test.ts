// The coordinator's data folder on a real, tiny tmpfs that fills up mid-run: no batch is
// acknowledged that is not on disk whole, a torn tail is cut back to the last complete line,
// the agent is told to resend (STORAGE_FAILED), and the same batch is taken once space is free.
// Needs root for `mount -t tmpfs`; skipped, saying so, where mounting is not possible.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { open, mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecordBatch } from '../../shared/protocol/batch.ts';
import type { AgentToCoordinator, ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { environmentRecord, sampleRecord } from '../helpers/raw-records.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { nativePlan } from '../helpers/test-plans.ts';

const PLAN = nativePlan('disk full', { rounds: 60 });

let mountPoint: string | null = null;
let skipReason: string | false = false;
before(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: 'pipe' });
    mountPoint = dir;
  } catch (error) {
    skipReason = `cannot mount a tmpfs here (needs root): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
});
after(() => {
  if (mountPoint) execFileSync('umount', ['-l', mountPoint]);
});

/** Fill the file system at `dir` completely, then free `free` bytes (rounded to pages by tmpfs). */
async function fillLeaving(dir: string, free: number): Promise<string> {
  const filler = join(dir, 'filler');
  const handle = await open(filler, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    await handle.close();
  }
  const { size } = await stat(filler);
  await truncate(filler, size - free);
  return filler;
}

test('a coordinator whose disk fills acknowledges only whole batches and takes the resent batch once space is freed', async (t) => {
  if (skipReason || !mountPoint) return t.skip(String(skipReason));
  let c: TestCoordinator | null = null;
  try {
    c = await startTestCoordinator({ dataDir: join(mountPoint, 'data') });
    const agent = await c.agent('disk');
    const control = await c.control();
    const planText = JSON.stringify(PLAN);
    const started = await request<ControlToCoordinator, 'run:start'>(control, 10_000, 'run:start', { planText, machines: ['disk'] });
    assert.equal(started.ok, true, JSON.stringify(started));
    if (!started.ok) return;
    const { runId, planSha256 } = started.value;
    // Lines of about 2 KB, so that one batch of ten spans several pages of the tmpfs.
    const walls = Array.from({ length: 40 }, (_, i) => 1_000_000 + i);
    const lines = [
      JSON.stringify(environmentRecord({ machine: 'disk', policy: 'whole', planSha256 })),
      ...Array.from({ length: 30 }, (_, i) => JSON.stringify(sampleRecord({ seq: i + 1, kernel: 'xxhash32', arm: 'native', round: i + 1, policy: 'whole', walls }))),
    ];
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
