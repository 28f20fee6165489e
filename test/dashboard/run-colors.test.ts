// The Compare page's run colours: the ten categorical colours first, then every run its own
// colour however many runs (with the ten alone, run 11 took run 1's colour).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUN_COLORS, runColors } from '../../web/src/charts/run-colors.ts';

test('every run of a comparison gets a colour of its own, the first ten the categorical ones', () => {
  for (const count of [1, 10, 13, 40]) {
    const colours = runColors(count);
    assert.equal(colours.length, count);
    assert.equal(new Set(colours).size, count, `${count} runs: ${colours.join(' ')}`);
    assert.deepEqual(colours.slice(0, 10), RUN_COLORS.slice(0, Math.min(10, count)));
  }
  // Beyond ten, neighbouring runs differ in hue by the golden angle, not a few degrees.
  const hue = (c: string): number => Number(/^hsl\((\d+)/.exec(c)?.[1]);
  const extra = runColors(14).slice(10);
  for (let i = 1; i < extra.length; i++) {
    const d = Math.abs(hue(extra[i] as string) - hue(extra[i - 1] as string));
    assert.ok(Math.min(d, 360 - d) > 100, `${extra[i - 1]} then ${extra[i]}`);
  }
});
