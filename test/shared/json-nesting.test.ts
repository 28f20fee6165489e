// How deep a JSON line nests, read without parsing it: exact at the bound, brackets inside
// strings not counted, whether or not the line has more opening brackets than the bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nestsDeeperThan } from '../../shared/protocol/json-nesting.ts';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

test('nesting is measured exactly at the bound, for arrays and objects alike', () => {
  assert.equal(nestsDeeperThan(nested(16), 16), false);
  assert.equal(nestsDeeperThan(nested(17), 16), true);
  assert.equal(nestsDeeperThan(`${'{"a":'.repeat(16)}1${'}'.repeat(16)}`, 16), false);
  assert.equal(nestsDeeperThan(`${'{"a":'.repeat(17)}1${'}'.repeat(17)}`, 16), true);
  assert.equal(nestsDeeperThan(nested(20_000), 16), true);
  // Many brackets side by side nest only one deep.
  assert.equal(nestsDeeperThan(`[${'[],'.repeat(100)}[]]`, 16), false);
  assert.equal(nestsDeeperThan(`{"a":[${'{},'.repeat(40)}{}]}`, 2), true);
  assert.equal(nestsDeeperThan(`{"a":[${'{},'.repeat(40)}{}]}`, 3), false);
});

test('brackets inside strings do not nest, escaped quotes and backslashes included', () => {
  assert.equal(nestsDeeperThan(`{"note":"${'['.repeat(100)}"}`, 16), false);
  assert.equal(nestsDeeperThan(`{"note":"a \\" ${'{'.repeat(100)}"}`, 16), false);
  assert.equal(nestsDeeperThan(`{"note":"ends in a backslash \\\\", "x":${nested(16)}}`, 16), true);
  assert.equal(nestsDeeperThan(`{"note":"ends in a backslash \\\\", "x":${nested(15)}}`, 16), false);
  // A sample line of the study: well under the bound.
  const sample = '{"type":"sample","seq":1,"roundLoadAverage":[0.1,0.1,0.1],"repeats":[{"wallNs":1},{"wallNs":1}],"failures":[],"checks":{"states":64}}';
  assert.equal(nestsDeeperThan(sample, 16), false);
  assert.equal(nestsDeeperThan(sample, 3), false);
  assert.equal(nestsDeeperThan(sample, 2), true);
});
