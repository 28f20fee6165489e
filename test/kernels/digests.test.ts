// The message-digest kernels (md5, sha1, sha256, sha512) have one shape, so one table: each
// digests its standard's published examples to the published digest and returns the digest's
// first four bytes big-endian, and agrees with node:crypto on both sides of its padding
// boundary (56 bytes of a 64-byte block; 112 of sha512's 128) and its block boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome, type KernelSpec } from '../../kernels/spec.ts';
import { md5 } from '../../kernels/specs/md5.ts';
import { sha1 } from '../../kernels/specs/sha1.ts';
import { sha256 } from '../../kernels/specs/sha256.ts';
import { sha512 } from '../../kernels/specs/sha512.ts';
import type { Rng } from '../../shared/prng.ts';

const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

interface DigestKernel {
  spec: KernelSpec;
  /** Where the examples are published. */
  examples: string;
  vectors: [message: string, digest: string][];
  /** Input sizes checked against node:crypto, around the padding and block boundaries. */
  sizes: number[];
  input: (rng: Rng, size: number) => Uint8Array;
}

const random = (rng: Rng, size: number): Uint8Array => randomBytes(rng, size);

const DIGESTS: DigestKernel[] = [
  {
    spec: md5,
    // RFC 1321, appendix A.5 "Test suite".
    examples: 'the RFC 1321 test suite',
    vectors: [
      ['', 'd41d8cd98f00b204e9800998ecf8427e'],
      ['a', '0cc175b9c0f1b6a831c399e269772661'],
      ['abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
      ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
      ['12345678901234567890123456789012345678901234567890123456789012345678901234567890', '57edf4a22be3c955ac49da2e2107b67a'],
    ],
    sizes: [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 100_003],
    input: random,
  },
  {
    spec: sha1,
    // NIST CSRC "Cryptographic Standards and Guidelines: Examples with Intermediate Values",
    // SHA1.pdf (FIPS 180-4 examples); the empty-message digest is the well-known SHA-1("").
    examples: 'the FIPS 180 examples: "abc", the empty message and the two-block message',
    vectors: [
      ['abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
      ['', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
      ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '84983e441c3bd26ebaae4aa1f95129e5e54670f1'],
    ],
    sizes: [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 100_003],
    input: random,
  },
  {
    spec: sha256,
    // NIST FIPS 180-4 examples (csrc.nist.gov "SHA256.pdf" and "SHA2_Additional"): one-block "abc",
    // the empty message, and the 448-bit two-block message.
    examples: 'the FIPS 180 examples: "abc", the empty message and the 448-bit two-block message',
    vectors: [
      ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
      ['abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq', '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1'],
    ],
    // 55 bytes is the longest message whose padding fits one block; 56..63 need a second block.
    sizes: [1, 55, 56, 63, 64, 65, 119, 120, 128, 100_000],
    // The kernel's own input generator, as the harness feeds it.
    input: (_rng, size) => sha256.generate(size, size),
  },
  {
    spec: sha512,
    // NIST CSRC "Examples with Intermediate Values", SHA512.pdf (FIPS 180-4 examples); the
    // empty-message digest is the well-known SHA-512("").
    examples: 'the FIPS 180 examples: "abc", the empty message and the 896-bit two-block message',
    vectors: [
      ['abc', 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f'],
      ['', 'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e'],
      [
        'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
        '8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909',
      ],
    ],
    sizes: [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 255, 256, 257, 100_003],
    input: random,
  },
];

for (const digest of DIGESTS) {
  const name = digest.spec.name;
  const kernel = instantiateKernel(loadKernelModule(name));

  test(`${name} matches ${digest.examples}, and returns each digest's first four bytes big-endian`, () => {
    for (const [message, expected] of digest.vectors) {
      const outcome = runOnce(kernel, ascii(message));
      assert.equal(hex(outcome.output), expected, `${name}("${message}")`);
      assert.equal(outcome.returnValue, Number.parseInt(expected.slice(0, 8), 16), `return value for "${message}"`);
    }
  });

  test(`${name} agrees with node:crypto on both sides of the padding and block boundaries`, () => {
    const rng = kernelRng(`${name}-test`, 1);
    for (const size of digest.sizes) {
      const input = digest.input(rng, size);
      assert.equal(checkOutcome(digest.spec.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
    }
  });
}

test('sha1 hashes a million "a" characters to the FIPS 180 long-message digest', () => {
  // The third FIPS 180 example: 1,000,000 repetitions of "a".
  const outcome = runOnce(instantiateKernel(loadKernelModule('sha1')), new Uint8Array(1_000_000).fill(0x61));
  assert.equal(hex(outcome.output), '34aa973cd4c4daa4f61eeb2bdbad27316534016f');
});
