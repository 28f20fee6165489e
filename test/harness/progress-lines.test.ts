// `benchfleet harness` off a terminal (nohup, CI) says how far it is: a line at every tenth of
// the plan and after 30 s without one, and nothing at all under the agent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgressBar } from '../../agent/harness/progress.ts';
import type { SampleSlot } from '../../agent/harness/schedule.ts';
import { textStream } from '../helpers/text-stream.ts';

const slot: SampleSlot = { policy: 'whole', round: 1, order: 1, kernel: 'sha256', arm: 'native' };

test('off a terminal the harness prints a line per tenth of the plan and after 30 s of silence, ending at 100%', () => {
  const out = textStream();
  let now = 0;
  const bar = createProgressBar(out.stream, { now: () => now });
  assert.ok(bar);
  // 40 samples, 2 s each, except one that takes 40 s (a slow kernel): the silence is broken.
  for (let done = 1; done <= 40; done++) {
    now += done === 6 ? 40_000 : 2000;
    bar.update(done, 40, { ...slot, round: Math.ceil(done / 10) }, done !== 3);
  }
  bar.finish();
  const lines = out.text().split('\n').filter(Boolean);
  assert.deepEqual(lines.map((l) => /^harness: (\d+)\/40 samples/.exec(l)?.[1]), ['4', '6', '8', '12', '16', '20', '24', '28', '32', '36', '40']);
  assert.equal(lines[0], 'harness: 4/40 samples (10%), 1 failed; now whole round 1; 8s so far, about 1m12s left');
  assert.equal(lines[1], 'harness: 6/40 samples (15%), 1 failed; now whole round 1; 50s so far, about 4m43s left');
  assert.equal(lines.at(-1), 'harness: 40/40 samples (100%), 1 failed; now whole round 4; 1m58s so far');
});

test('under the agent (plainLines false) the harness prints no progress off a terminal', () => {
  assert.equal(createProgressBar(textStream().stream, { plainLines: false }), null);
});
