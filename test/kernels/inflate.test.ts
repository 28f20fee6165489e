// The inflate kernel against zlib.inflateRawSync: stored, fixed and dynamic blocks made by
// node:zlib, hand-assembled streams (a single 1-bit distance code, which zlib accepts), and
// malformed streams (cut off, corrupted, reserved block type, bad lengths) -> -1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes, textBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { inflate } from '../../kernels/specs/inflate.ts';

const kernel = instantiateKernel(loadKernelModule('inflate'));
const REJECTED = 0xffffffff;
const OUTPUT_CAP = 4 * 1024 * 1024;

/** Inflate with the kernel and check it against zlib; returns the kernel's outcome. */
function agrees(stream: Uint8Array, label: string): { returnValue: number; output: Uint8Array } {
  const outcome = runOnce(kernel, stream);
  assert.equal(checkOutcome(inflate.oracle(stream), outcome), null, label);
  return outcome;
}

function deflated(data: Uint8Array, options: zlib.ZlibOptions): Uint8Array {
  return new Uint8Array(zlib.deflateRawSync(data, options));
}

/** The BTYPE field of the first block header. */
const firstBlockType = (stream: Uint8Array): number => ((stream[0] as number) >>> 1) & 3;

test('inflate decodes the 3-byte fixed-Huffman stream zlib writes for "a"', () => {
  const stream = new Uint8Array([0x4b, 0x04, 0x00]);
  assert.deepEqual(deflated(new Uint8Array([0x61]), {}), stream);
  const outcome = agrees(stream, '"a"');
  assert.deepEqual(outcome.output, new Uint8Array([0x61]));
  assert.equal(outcome.returnValue, 1);
});

test('inflate copies stored blocks (level 0), across the 65535-byte stored block limit', () => {
  const rng = kernelRng('inflate-test', 1);
  for (const size of [1, 65_535, 65_536, 150_000]) {
    const data = randomBytes(rng, size);
    const stream = deflated(data, { level: 0 });
    assert.equal(firstBlockType(stream), 0);
    const outcome = agrees(stream, `stored ${size}`);
    assert.deepEqual(outcome.output, data);
  }
});

test('inflate decodes fixed-Huffman streams (Z_FIXED)', () => {
  const rng = kernelRng('inflate-test', 2);
  for (const size of [1, 100, 70_000]) {
    const data = textBytes(rng, size);
    const stream = deflated(data, { strategy: zlib.constants.Z_FIXED });
    assert.equal(firstBlockType(stream), 1);
    assert.deepEqual(agrees(stream, `fixed ${size}`).output, data);
  }
});

test('inflate decodes dynamic-Huffman streams of text and of noise at levels 1, 6 and 9', () => {
  const rng = kernelRng('inflate-test', 3);
  for (const level of [1, 6, 9]) {
    const text = textBytes(rng, 300_000);
    const stream = deflated(text, { level });
    assert.equal(firstBlockType(stream), 2);
    assert.deepEqual(agrees(stream, `text level ${level}`).output, text);
  }
  const noise = randomBytes(rng, 50_000);
  assert.deepEqual(agrees(deflated(noise, { level: 6 }), 'noise').output, noise);
  const generated = inflate.generate(9, inflate.defaultSize);
  assert.equal(firstBlockType(generated), 2);
  agrees(generated, 'generated');
});

test('inflate gives 0 bytes for the empty stream and rejects empty input', () => {
  const empty = deflated(new Uint8Array(0), {});
  assert.deepEqual(empty, new Uint8Array([0x03, 0x00]));
  const outcome = agrees(empty, 'empty stream');
  assert.equal(outcome.returnValue, 0);
  assert.equal(outcome.output.length, 0);
  assert.equal(agrees(new Uint8Array(0), 'no bytes').returnValue, REJECTED);
});

test('inflate ignores bytes after the final block, as zlib does', () => {
  const data = textBytes(kernelRng('inflate-test', 4), 1000);
  const stream = new Uint8Array([...deflated(data, {}), 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(agrees(stream, 'trailing bytes').output, data);
});

test('inflate rejects every cut of a stream before its end, and agrees with zlib on each', () => {
  const data = textBytes(kernelRng('inflate-test', 5), 3000);
  for (const [label, stream] of [['dynamic', deflated(data, {})], ['fixed', deflated(data, { strategy: zlib.constants.Z_FIXED })], ['stored', deflated(data.subarray(0, 300), { level: 0 })]] as const) {
    for (let cut = 0; cut < stream.length; cut++) {
      const outcome = agrees(stream.subarray(0, cut), `${label} cut at ${cut}`);
      assert.equal(outcome.returnValue, REJECTED, `${label} cut at ${cut}`);
    }
  }
});

test('inflate agrees with zlib on 3000 streams with one bit flipped', () => {
  const rng = kernelRng('inflate-test', 6);
  const original = deflated(textBytes(rng, 4000), {});
  let rejected = 0;
  for (let k = 0; k < 3000; k++) {
    const stream = original.slice();
    const bit = rng.below(stream.length * 8);
    stream[bit >>> 3] = (stream[bit >>> 3] as number) ^ (1 << (bit & 7));
    if (agrees(stream, `bit ${bit} flipped`).returnValue === REJECTED) rejected++;
  }
  assert.ok(rejected > 100, `${rejected} of 3000 corrupted streams rejected`);
});

test('inflate rejects the reserved block type, a bad stored length and a distance before the start', () => {
  assert.equal(agrees(new Uint8Array([0x07, 0x00]), 'BTYPE 11').returnValue, REJECTED);
  // Stored block, LEN 1, NLEN not its complement.
  assert.equal(agrees(new Uint8Array([0x01, 0x01, 0x00, 0xff, 0xff, 0x61]), 'LEN/NLEN').returnValue, REJECTED);
  assert.equal(agrees(new Uint8Array([0x01, 0x01, 0x00, 0xfe, 0xff, 0x61]), 'good LEN/NLEN').returnValue, 1);
  // Fixed block whose first symbol is a match (length 3, distance 1) with no output yet.
  const w = new BitWriter();
  w.bits(1, 1).bits(1, 2).code(0b0000001, 7).code(0b00000, 5).code(0, 7);
  assert.equal(agrees(w.bytes(), 'distance too far back').returnValue, REJECTED);
});

test('inflate fills the 4 MiB output region exactly and rejects one byte more', () => {
  const full = agrees(deflated(new Uint8Array(OUTPUT_CAP).fill(7), {}), '4 MiB');
  assert.equal(full.returnValue, OUTPUT_CAP);
  assert.equal(agrees(deflated(new Uint8Array(OUTPUT_CAP + 1).fill(7), {}), '4 MiB + 1').returnValue, REJECTED);
});

/** Writes DEFLATE bits: header fields and extra bits LSB first, Huffman codes MSB first. */
class BitWriter {
  readonly out: number[] = [];
  acc = 0;
  n = 0;
  bits(value: number, count: number): this {
    for (let i = 0; i < count; i++) this.push((value >>> i) & 1);
    return this;
  }
  code(code: number, length: number): this {
    for (let i = length - 1; i >= 0; i--) this.push((code >>> i) & 1);
    return this;
  }
  private push(bit: number): void {
    this.acc |= bit << this.n;
    if (++this.n === 8) {
      this.out.push(this.acc);
      this.acc = 0;
      this.n = 0;
    }
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.n > 0 ? [...this.out, this.acc] : this.out);
  }
}

/**
 * A final dynamic block with literal/length code {97: 1 bit, 256: 2, 257: 2} and one distance
 * code: symbol 0 (distance 1) with `distLength` bits. It encodes "a", then a match of 3 at
 * distance 1 written with distance code `distCode`, then end-of-block: "aaaa" when valid.
 */
function dynamicStream(distLength: number, distCode: number): Uint8Array {
  const w = new BitWriter();
  w.bits(1, 1).bits(2, 2); // BFINAL, BTYPE = 10
  w.bits(258 - 257, 5).bits(1 - 1, 5).bits(18 - 4, 4); // HLIT 258, HDIST 1, HCLEN 18
  // Code-length code lengths in RFC order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1:
  // symbol 18 gets 1 bit (code 0), symbols 1 and 2 get 2 bits (codes 10 and 11).
  const clLengths = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2];
  for (const len of clLengths) w.bits(len, 3);
  const zeros = (count: number): void => {
    w.code(0, 1).bits(count - 11, 7); // symbol 18: repeat a zero 11..138 times
  };
  const length1 = (): BitWriter => w.code(0b10, 2);
  const length2 = (): BitWriter => w.code(0b11, 2);
  zeros(97); // symbols 0..96
  length1(); // 97 'a'
  zeros(138); // 98..235
  zeros(20); // 236..255
  length2(); // 256
  length2(); // 257
  if (distLength === 1) length1();
  else length2();
  // Literal/length code: 97 -> 0, 256 -> 10, 257 -> 11.
  w.code(0, 1).code(0b11, 2).code(distCode, distLength).code(0b10, 2);
  return w.bytes();
}

test('inflate accepts a single 1-bit distance code, as zlib does, and rejects its unused code', () => {
  const outcome = agrees(dynamicStream(1, 0), 'one 1-bit distance code');
  assert.equal(Buffer.from(outcome.output).toString('latin1'), 'aaaa');
  assert.equal(agrees(dynamicStream(1, 1), 'the missing distance code').returnValue, REJECTED);
  // One 2-bit distance code is incomplete beyond what zlib allows.
  assert.equal(agrees(dynamicStream(2, 0), 'one 2-bit distance code').returnValue, REJECTED);
});
