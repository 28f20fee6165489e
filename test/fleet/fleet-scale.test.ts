// The fleet load generator in small: 50 simulated agents speaking the real protocol against a
// real coordinator process, each sample a one-line batch and a progress event. Every sample is
// stored exactly once, byte for byte, and acknowledgements stay well within the agent's timeout
// (a loose bound: other test files run at the same time; the full figures are the benchmark's,
// test/bench/fleet-scale.bench.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFigures, runFleetLoad } from '../helpers/fleet-load.ts';

const MACHINES = 50;
const SAMPLES = 48;

test('50 simulated agents streaming a sample at a time: every sample stored exactly once, acks answered in seconds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-fleet-scale-'));
  try {
    const f = await runFleetLoad({ dir, machines: MACHINES, pace: 8, samplesPerMachine: SAMPLES, timeoutMs: 180_000 });
    const described = describeFigures(f).join('\n');
    assert.deepEqual(f.problems, [], described);
    assert.deepEqual(f.refusals, [], described);
    assert.equal(f.files, MACHINES, described);
    assert.equal(f.samples, MACHINES * SAMPLES, described);
    assert.equal(f.runState, 'completed', described);
    assert.equal(f.ackMs.count >= MACHINES * (SAMPLES + 1) - MACHINES * SAMPLES * 0.5, true, `at most one batch per sample and environment row, some grouped: ${f.ackMs.count}`);
    assert.ok(f.ackMs.p99 < 5000, `ack p99 ${f.ackMs.p99.toFixed(0)} ms\n${described}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
