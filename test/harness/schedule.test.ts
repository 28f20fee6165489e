// Rounds are paired and rotated by the seed; a kernel's arms stay together; the sequential and
// interleaved schedules give the same samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { policyOrder, roundOrder, scheduleSamples } from '../../agent/harness/schedule.ts';
import type { Policy } from '../../shared/policies.ts';

const kernels = ['a', 'b', 'c', 'd'];
const arms = ['native', 'x', 'y'];

test('each round runs every (kernel, arm) once, with each kernel\'s arms contiguous', () => {
  for (let round = 1; round <= 7; round++) {
    const order = roundOrder(kernels, arms, 42, round);
    assert.equal(order.length, 12);
    assert.equal(new Set(order.map((p) => `${p.kernel}/${p.arm}`)).size, 12);
    const runs = order.map((p) => p.kernel).filter((k, i, all) => i === 0 || all[i - 1] !== k);
    assert.deepEqual([...runs].sort(), kernels, `round ${round}: ${runs.join(',')}`);
  }
});

test('the order is rotated from round to round and is the same for the same seed', () => {
  const orders = [1, 2, 3, 4, 5, 6, 7].map((r) => roundOrder(kernels, arms, 42, r).map((p) => `${p.kernel}/${p.arm}`).join(' '));
  assert.ok(new Set(orders).size > 1, 'not every round has the same order');
  assert.deepEqual(roundOrder(kernels, arms, 42, 3), roundOrder(kernels, arms, 42, 3));
  assert.notDeepEqual(
    [1, 2, 3, 4, 5].map((r) => roundOrder(kernels, arms, 42, r)),
    [1, 2, 3, 4, 5].map((r) => roundOrder(kernels, arms, 43, r)),
  );
});

test('interleaved rounds put every policy in every position over as many rounds', () => {
  const policies: Policy[] = ['whole', 'pages', 'checkpoint'];
  const firsts = [1, 2, 3].map((r) => policyOrder(policies, 9, r)[0]);
  assert.deepEqual([...firsts].sort(), [...policies].sort());
});

test('sequential and interleaved schedules give the same set of samples, each with its order', () => {
  const policies: Policy[] = ['whole', 'pages', 'checkpoint'];
  const key = (s: { policy: string; round: number; order: number; kernel: string; arm: string }): string => `${s.policy}/${s.round}/${s.order}/${s.kernel}/${s.arm}`;
  const sequential = scheduleSamples({ kernels, arms, policies, rounds: 7, seed: 5, schedule: 'sequential' });
  const interleaved = scheduleSamples({ kernels, arms, policies, rounds: 7, seed: 5, schedule: 'interleaved' });
  assert.equal(sequential.length, 4 * 3 * 7 * 3);
  assert.deepEqual(sequential.map(key).sort(), interleaved.map(key).sort());
  assert.equal(new Set(sequential.map(key)).size, sequential.length);
  // Sequential: all of whole's rounds first. Interleaved: round 1 of every policy first.
  assert.deepEqual(new Set(sequential.slice(0, 84).map((s) => s.policy)), new Set(['whole']));
  assert.deepEqual(new Set(interleaved.slice(0, 36).map((s) => s.round)), new Set([1]));
  assert.deepEqual(new Set(interleaved.slice(0, 36).map((s) => s.policy)), new Set(policies));
});
