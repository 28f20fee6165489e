// The fleet load generator in small: 50 simulated agents speaking the real protocol against a
// real coordinator process, sending their lines as the agent does (at most one flush per
// RECORD_SEND_MS, the run's last lines at once) and paced progress. Every sample is stored
// exactly once, byte for byte, no machine sends more batches than its pacing allows, and
// acknowledgements stay well within the agent's timeout (a loose bound: other test files run at
// the same time; the full figures are the benchmark's, test/bench/fleet-scale.bench.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFigures, runFleetLoad } from '../helpers/fleet-load.ts';
import { RECORD_SEND_MS } from '../../shared/protocol/limits.ts';

const MACHINES = 50;
const SAMPLES = 48;

test('50 simulated agents streaming at the agent\'s pace: every sample stored exactly once, at most a batch per 500 ms per machine, acks answered in seconds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-fleet-scale-'));
  try {
    const f = await runFleetLoad({ dir, machines: MACHINES, pace: 8, samplesPerMachine: SAMPLES, timeoutMs: 180_000 });
    const described = describeFigures(f).join('\n');
    assert.deepEqual(f.problems, [], described);
    assert.deepEqual(f.refusals, [], described);
    assert.equal(f.files, MACHINES, described);
    assert.equal(f.samples, MACHINES * SAMPLES, described);
    assert.equal(f.runState, 'completed', described);
    // 48 samples at 8/s: 6 s per machine, so a flush at its first sample, at most one per 500 ms
    // after it and one with its last sample: at most 14 batches, 12 to 13 on time. Fewer when the
    // generator falls behind and makes several samples at once, but never one per sample (49).
    const perMachine = f.ackMs.count / MACHINES;
    const mostBatches = 1 + Math.ceil((SAMPLES / 8) * (1000 / RECORD_SEND_MS)) + 1;
    assert.ok(perMachine <= mostBatches, `at most ${mostBatches} batches per machine, got ${perMachine.toFixed(1)}\n${described}`);
    // The first sample's flush and the last one's are two; a third means lines went mid-run.
    assert.ok(perMachine >= 3, `the lines went in several batches, not held to the end: ${perMachine.toFixed(1)} per machine\n${described}`);
    assert.ok(f.ackMs.p99 < 5000, `ack p99 ${f.ackMs.p99.toFixed(0)} ms\n${described}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
