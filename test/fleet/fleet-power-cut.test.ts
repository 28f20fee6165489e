// Acknowledged means durable through a power cut: the quick variant of the power-cut lab
// (test/helpers/power-cut-lab.ts; `npm run bench -- crash` cuts many more times). A real
// coordinator on a file layer that drops whatever was never made durable, two real agents
// with a campaign and queued runs, four simulated agents streaming a series: three cuts, each
// followed by a restart on what survived; every acknowledged line is still there exactly once,
// byte for byte, every run completes and verifies, the index equals a reindex, nothing is half made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runPowerCutLab } from '../helpers/power-cut-lab.ts';

test('after three power cuts under load every acknowledged line is stored exactly once, every run completes and verifies, and the index equals a reindex', { timeout: 420_000 }, async () => {
  const result = await runPowerCutLab({ cuts: 3, seed: 1, simulated: 4, cutAfterMs: [1500, 4000], log: (line) => console.log(`# ${line}`) });
  assert.deepEqual(result.problems, []);
  assert.equal(result.lost, 0);
  assert.equal(result.cuts.length, 3);
  assert.ok(result.runs >= 4, `${result.runs} runs`);
  assert.ok(result.acknowledgedLines > 100, `${result.acknowledgedLines} lines acknowledged`);
});
