// The siphash24 kernel: the 64 SipHash-2-4 vectors of the reference implementation, the siphash
// package on random keys around the 8-byte block, and rejection of inputs shorter than the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { siphash24, sipHash24Tag } from '../../kernels/specs/siphash24.ts';

const kernel = instantiateKernel(loadKernelModule('siphash24'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const iota = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i);

// github.com/veorq/SipHash, vectors.h, vectors_sip64: the tag (bytes as the reference code
// writes them) of the message 00 01 .. (n-1) under the key 00 01 .. 0f, for n = 0 .. 63.
// Entry 15 is the worked example of appendix A of the SipHash paper (Aumasson & Bernstein).
const REFERENCE_TAGS = [
  '310e0edd47db6f72',
  'fd67dc93c539f874',
  '5a4fa9d909806c0d',
  '2d7efbd796666785',
  'b7877127e09427cf',
  '8da699cd64557618',
  'cee3fe586e46c9cb',
  '37d1018bf50002ab',
  '6224939a79f5f593',
  'b0e4a90bdf82009e',
  'f3b9dd94c5bb5d7a',
  'a7ad6b22462fb3f4',
  'fbe50e86bc8f1e75',
  '903d84c02756ea14',
  'eef27a8e90ca23f7',
  'e545be4961ca29a1',
  'db9bc2577fcc2a3f',
  '9447be2cf5e99a69',
  '9cd38d96f0b3c14b',
  'bd6179a71dc96dbb',
  '98eea21af25cd6be',
  'c7673b2eb0cbf2d0',
  '883ea3e395675393',
  'c8ce5ccd8c030ca8',
  '94af49f6c650adb8',
  'eab8858ade92e1bc',
  'f315bb5bb835d817',
  'adcf6b0763612e2f',
  'a5c91da7acaa4dde',
  '716595876650a2a6',
  '28ef495c53a387ad',
  '42c341d8fa92d832',
  'ce7cf2722f512771',
  'e37859f94623f3a7',
  '381205bb1ab0e012',
  'ae97a10fd434e015',
  'b4a31508beff4d31',
  '81396229f0907902',
  '4d0cf49ee5d4dcca',
  '5c73336a76d8bf9a',
  'd0a704536ba93e0e',
  '925958fcd6420cad',
  'a915c29bc8067318',
  '952b79f3bc0aa6d4',
  'f21df2e41d4535f9',
  '87577519048f53a9',
  '10a56cf5dfcd9adb',
  'eb75095ccd986cd0',
  '51a9cb9ecba312e6',
  '96afadfc2ce666c7',
  '72fe52975a4364ee',
  '5a1645b276d592a1',
  'b274cb8ebf87870a',
  '6f9bb4203de7b381',
  'eaecb2a30b22a87f',
  '9924a43cc1315724',
  'bd838d3aafbf8db7',
  '0b1a2a3265d51aea',
  '135079a3231ce660',
  '932b2846e4d70666',
  'e1915f5cb1eca46c',
  'f325965ca16d629f',
  '575ff28e60381be5',
  '724506eb4c328a95',
];

test('siphash24 reproduces all 64 reference vectors (key 00..0f, messages 00..n-1 for n = 0..63)', () => {
  assert.equal(REFERENCE_TAGS.length, 64);
  const key = iota(16);
  REFERENCE_TAGS.forEach((tag, n) => {
    const input = new Uint8Array([...key, ...iota(n)]);
    const outcome = runOnce(kernel, input);
    assert.equal(hex(outcome.output), tag, `message length ${n}`);
    assert.equal(outcome.returnValue, Buffer.from(tag, 'hex').readUInt32LE(0), `return value for length ${n}`);
  });
});

test('siphash24 gives the paper\'s worked example: key 00..0f, message 00..0e, tag 0xa129ca6149be45e5', () => {
  // SipHash: a fast short-input PRF, appendix A: the 64-bit tag a129ca6149be45e5.
  const outcome = runOnce(kernel, new Uint8Array([...iota(16), ...iota(15)]));
  assert.equal(Buffer.from(outcome.output).readBigUInt64LE(0), 0xa129ca6149be45e5n);
  assert.equal(outcome.returnValue, 0x49be45e5);
});

test('the siphash package used as the oracle reproduces all 64 reference vectors on byte arrays', () => {
  REFERENCE_TAGS.forEach((tag, n) => assert.equal(hex(sipHash24Tag(iota(16), iota(n))), tag, `message length ${n}`));
});

test('siphash24 agrees with the siphash package on random keys around the 8-byte block', () => {
  const rng = kernelRng('siphash24-test', 1);
  for (const messageSize of [0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 100_003]) {
    const input = randomBytes(rng, 16 + messageSize);
    assert.equal(checkOutcome(siphash24.oracle(input), runOnce(kernel, input)), null, `message size ${messageSize}`);
  }
});

test('siphash24 rejects an input shorter than the 16-byte key, on the host and in the kernel', () => {
  assert.match(siphash24.validateInput?.(new Uint8Array(15)) ?? '', /15 bytes.*16-byte key/);
  assert.equal(siphash24.validateInput?.(new Uint8Array(16)), null);
  const outcome = runOnce(kernel, new Uint8Array(15));
  assert.equal(outcome.returnValue, 0xffffffff);
  assert.equal(outcome.output.length, 0);
  assert.equal(siphash24.generate(3, 4).length, 16, 'the generator never makes an input shorter than the key');
});
