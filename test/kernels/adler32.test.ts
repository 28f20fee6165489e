// The adler32 kernel: the published "Wikipedia" value, and zlib's stream trailer around the
// 5552-byte chunk (NMAX) after which the sums are reduced, including the worst case for overflow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { adler32 } from '../../kernels/specs/adler32.ts';

const kernel = instantiateKernel(loadKernelModule('adler32'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

test('adler32 of "Wikipedia" is 0x11E60398 and of no bytes is 1', () => {
  // The worked example of the Wikipedia article "Adler-32": Adler-32("Wikipedia") = 0x11E60398.
  const wiki = runOnce(kernel, ascii('Wikipedia'));
  assert.equal(wiki.returnValue, 0x11e60398);
  assert.deepEqual(wiki.output, new Uint8Array([0x11, 0xe6, 0x03, 0x98]));
  // RFC 1950 section 8.2: s1 starts at 1, s2 at 0.
  assert.equal(runOnce(kernel, new Uint8Array(0)).returnValue, 1);
});

test('adler32 agrees with the zlib trailer on both sides of the 8-byte step and the 5552-byte chunk', () => {
  const rng = kernelRng('adler32-test', 1);
  for (const size of [1, 7, 8, 9, 5551, 5552, 5553, 11_104, 11_105, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(adler32.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});

test('adler32 does not overflow on 3 MiB of 0xFF bytes, the largest sums the input region allows', () => {
  const input = new Uint8Array(3 * 1024 * 1024).fill(0xff);
  assert.equal(checkOutcome(adler32.oracle(input), runOnce(kernel, input)), null);
});
