// The SHA-256 kernel against FIPS 180-4 examples and node:crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { sha256 } from '../../kernels/specs/sha256.ts';

const kernel = instantiateKernel(loadKernelModule('sha256'));
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

// NIST FIPS 180-4 examples (csrc.nist.gov "SHA256.pdf" and "SHA2_Additional"): one-block "abc",
// the empty message, and the 448-bit two-block message.
const VECTORS: [string, string][] = [
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
];

for (const [message, digest] of VECTORS) {
  test(`digests the NIST example ${JSON.stringify(message)} and returns its first four bytes big-endian`, () => {
    const outcome = runOnce(kernel, text(message));
    assert.equal(hex(outcome.output), digest);
    assert.equal(outcome.returnValue, parseInt(digest.slice(0, 8), 16));
  });
}

test('agrees with node:crypto on 1 byte and around the one- and two-block padding boundaries', () => {
  // 55 bytes is the longest message whose padding fits one block; 56..63 need a second block.
  for (const size of [1, 55, 56, 63, 64, 65, 119, 120, 128, 100_000]) {
    const input = sha256.generate(size, size);
    assert.equal(checkOutcome(sha256.oracle(input), runOnce(kernel, input)), null, `${size} bytes`);
  }
});
