// One promise per key, made again after a failure, and a failure that drops only its own entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedPromise } from '../../shared/promise-cache.ts';

test('every caller for a key gets the one promise made for it; a failed one is made again by the next caller', async () => {
  const cache = new Map<string, Promise<number>>();
  let made = 0;
  const make = (): Promise<number> => {
    made++;
    return made === 1 ? Promise.reject(new Error('first read failed')) : Promise.resolve(made);
  };
  const first = cachedPromise(cache, 'k', make);
  assert.equal(cachedPromise(cache, 'k', make), first, 'the same promise while it is pending');
  await assert.rejects(first, /first read failed/);
  assert.equal(cache.has('k'), false, 'the failure is dropped');
  assert.equal(await cachedPromise(cache, 'k', make), 2);
  assert.equal(await cachedPromise(cache, 'k', make), 2, 'and the success is kept');
  assert.equal(made, 2);
});

test('a failure drops only its own entry: a newer promise made after the entry was dropped stays', async () => {
  const cache = new Map<string, Promise<string>>();
  let fail: (error: Error) => void = () => undefined;
  const old = cachedPromise(cache, 'k', () => new Promise<string>((_, reject) => (fail = reject)));
  cache.delete('k');
  const newer = cachedPromise(cache, 'k', () => Promise.resolve('newer'));
  fail(new Error('the old read failed'));
  await assert.rejects(old);
  assert.equal(cache.get('k'), newer);
  assert.equal(await cachedPromise(cache, 'k', () => Promise.resolve('again')), 'newer');
});
