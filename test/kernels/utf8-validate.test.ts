// The utf8-validate kernel against TextDecoder (fatal mode) on the RFC 3629 edge cases, every
// two-byte input, every lead and second byte of longer forms, and the generated text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { mixedUtf8, utf8Validate } from '../../kernels/specs/utf8-validate.ts';

const kernel = instantiateKernel(loadKernelModule('utf8-validate'));
const decoder = new TextDecoder('utf-8', { fatal: true });

function decoderSaysValid(bytes: Uint8Array): number {
  try {
    decoder.decode(bytes);
    return 1;
  } catch {
    return 0;
  }
}

function validity(bytes: Uint8Array): number {
  const outcome = runOnce(kernel, bytes);
  assert.equal(outcome.output.length, 0);
  return outcome.returnValue;
}

const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/ /g, ''), 'hex'));

test('utf8-validate decides the RFC 3629 edge cases as TextDecoder does', () => {
  const cases: [string, number][] = [
    ['', 1],
    ['41', 1],
    ['c0 80', 0], // overlong NUL
    ['c1 bf', 0], // overlong U+007F
    ['c2 80', 1], // U+0080, the first 2-byte code point
    ['e0 80 80', 0], // overlong U+0000 in 3 bytes
    ['e0 9f bf', 0], // overlong U+07FF
    ['e0 a0 80', 1], // U+0800
    ['ed 9f bf', 1], // U+D7FF, the last code point before the surrogates
    ['ed a0 80', 0], // U+D800, a surrogate
    ['ed bf bf', 0], // U+DFFF, a surrogate
    ['ee 80 80', 1], // U+E000
    ['ef bf bf', 1], // U+FFFF
    ['f0 80 80 80', 0], // overlong in 4 bytes
    ['f0 8f bf bf', 0], // overlong U+FFFF
    ['f0 90 80 80', 1], // U+10000
    ['f4 8f bf bf', 1], // U+10FFFF, the last code point
    ['f4 90 80 80', 0], // U+110000, past the end of Unicode
    ['f5 80 80 80', 0],
    ['ff', 0],
    ['80', 0], // a lone continuation byte
    ['c3', 0], // cut off after the lead
    ['e2 82', 0], // "€" cut off
    ['f0 9f 98', 0], // an emoji cut off
    ['e2 82 ac', 1], // "€"
    ['f0 9f 98 80', 1], // U+1F600
    ['c3 28', 0], // a lead followed by ASCII
    ['e2 28 a1', 0],
    ['f0 28 8c bc', 0],
  ];
  for (const [text, expected] of cases) {
    const bytes = hex(text);
    assert.equal(decoderSaysValid(bytes), expected, `TextDecoder on "${text}"`);
    assert.equal(validity(bytes), expected, `kernel on "${text}"`);
  }
});

test('utf8-validate agrees with TextDecoder on all 65536 two-byte inputs', () => {
  const bytes = new Uint8Array(2);
  for (let v = 0; v < 65536; v++) {
    bytes[0] = v >>> 8;
    bytes[1] = v & 0xff;
    assert.equal(validity(bytes), decoderSaysValid(bytes), `input ${v.toString(16).padStart(4, '0')}`);
  }
});

test('utf8-validate agrees with TextDecoder on every lead and second byte of 3- and 4-byte forms', () => {
  for (let lead = 0xe0; lead <= 0xff; lead++) {
    for (let second = 0; second < 256; second++) {
      for (const tail of [[0x80, 0x80], [0xbf, 0xbf], [0x80, 0x41], [0xc0, 0x80]]) {
        const bytes = new Uint8Array([lead, second, ...tail]);
        assert.equal(validity(bytes), decoderSaysValid(bytes), `input ${Buffer.from(bytes).toString('hex')}`);
        const three = bytes.subarray(0, 3);
        assert.equal(validity(three), decoderSaysValid(three), `input ${Buffer.from(three).toString('hex')}`);
      }
    }
  }
});

test('utf8-validate finds an invalid byte at every position around the 8-byte ASCII fast path', () => {
  for (let at = 0; at < 20; at++) {
    const bytes = new Uint8Array(20).fill(0x61);
    bytes[at] = 0x80;
    assert.equal(validity(bytes), 0, `stray continuation at ${at}`);
    bytes[at] = 0x61;
    if (at + 3 <= 20) {
      bytes.set([0xe2, 0x82, 0xac], at); // "€" straddling a word boundary
      assert.equal(validity(bytes), 1, `"€" at ${at}`);
    }
  }
});

test('utf8-validate accepts the generated text, which TextDecoder round-trips, and rejects it cut mid-sequence', () => {
  const input = utf8Validate.generate(1, 200_000);
  assert.equal(checkOutcome(utf8Validate.oracle(input), runOnce(kernel, input)), null);
  assert.equal(validity(input), 1);
  assert.deepEqual(new TextEncoder().encode(decoder.decode(input)), input);
  const widths = new Set<number>();
  for (const ch of decoder.decode(input)) widths.add(new TextEncoder().encode(ch).length);
  assert.deepEqual([...widths].sort(), [1, 2, 3, 4], 'all four sequence lengths occur');
  // Cut just after the first lead byte of a multi-byte sequence.
  const lead = input.findIndex((b) => b >= 0xc2);
  assert.equal(validity(input.subarray(0, lead + 1)), 0);
  for (const size of [1, 2, 3, 4, 5, 1000]) {
    const small = mixedUtf8(kernelRng('utf8-validate-test', size), size);
    assert.equal(small.length, size);
    assert.equal(validity(small), 1, `generated ${size} bytes`);
    assert.equal(decoderSaysValid(small), 1);
  }
});
