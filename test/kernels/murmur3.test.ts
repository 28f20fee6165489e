// The murmur3 kernel (MurmurHash3 x86_32, seed 0): published seed-0 vectors, and the
// murmurhash3js-revisited package around the 4-byte block.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import murmurhash3 from 'murmurhash3js-revisited';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { murmur3 } from '../../kernels/specs/murmur3.ts';

const kernel = instantiateKernel(loadKernelModule('murmur3'));

// Seed-0 vectors for MurmurHash3_x86_32 checked against SMHasher's implementation, published in
// Ian Boyd's answer to "MurmurHash3 Test Vectors", https://stackoverflow.com/a/31929528.
const PUBLISHED: [number[], number][] = [
  [[], 0],
  [[0xff, 0xff, 0xff, 0xff], 0x76293b50],
  [[0x21, 0x43, 0x65, 0x87], 0xf55b516b],
  [[0x21, 0x43, 0x65], 0x7e4a8634],
  [[0x21, 0x43], 0xa0f7b07a],
  [[0x21], 0x72661cf4],
  [[0x00, 0x00, 0x00, 0x00], 0x2362f9de],
  [[0x00, 0x00, 0x00], 0x85f0b427],
  [[0x00, 0x00], 0x30f4c306],
  [[0x00], 0x514e28b7],
];

test('murmur3 reproduces the published seed-0 vectors, tail lengths 0 to 3 included', () => {
  for (const [bytes, hash] of PUBLISHED) {
    const outcome = runOnce(kernel, new Uint8Array(bytes));
    assert.equal(outcome.returnValue, hash, `bytes [${bytes.join(', ')}]`);
    const output = new Uint8Array(4);
    new DataView(output.buffer).setUint32(0, hash, false);
    assert.deepEqual(outcome.output, output);
  }
});

test('the murmurhash3js-revisited oracle reproduces the published seed-0 vectors', () => {
  for (const [bytes, hash] of PUBLISHED) assert.equal(murmurhash3.x86.hash32(new Uint8Array(bytes), 0), hash, `bytes [${bytes.join(', ')}]`);
});

test('murmur3 agrees with murmurhash3js-revisited on every tail length and a long input', () => {
  const rng = kernelRng('murmur3-test', 1);
  for (const size of [1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 256, 257, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(murmur3.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});
