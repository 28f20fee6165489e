// The ChaCha20 kernel against RFC 8439 and node:crypto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { chacha20 } from '../../kernels/specs/chacha20.ts';

const kernel = instantiateKernel(loadKernelModule('chacha20'));
const hex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

function withCounter(input: Uint8Array, counter: number): Uint8Array {
  const copy = input.slice();
  new DataView(copy.buffer).setUint32(44, counter, true);
  return copy;
}

test('encrypts the RFC 8439 section 2.4.2 sunscreen example', () => {
  // RFC 8439 section 2.4.2: key 00..1f, nonce 00000000 0000004a 00000000, initial counter 1.
  const key = hex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
  const nonce = hex('000000000000004a00000000');
  const counter = hex('01000000');
  const plaintext = new TextEncoder().encode(
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  );
  const ciphertext = hex(`
    6e2e359a2568f98041ba0728dd0d6981 e97e7aec1d4360c20a27afccfd9fae0b
    f91b65c5524733ab8f593dabcd62b357 1639d624e65152ab8f530c359f0861d8
    07ca0dbf500d6a6156a38e088a22b65e 52bc514d16ccf806818ce91ab7793736
    5af90bbf74a35be6b40b8eedf2785e42 874d`);
  const outcome = runOnce(kernel, concat(key, nonce, counter, plaintext));
  assert.equal(outcome.returnValue, 114);
  assert.deepEqual(outcome.output, ciphertext);
});

test('agrees with node:crypto for 0, 1, 63, 64, 65, 127 and 4096 data bytes', () => {
  for (const dataBytes of [0, 1, 63, 64, 65, 127, 4096]) {
    const input = chacha20.generate(dataBytes + 3, 48 + dataBytes);
    assert.equal(input.length, 48 + dataBytes);
    const outcome = runOnce(kernel, input);
    assert.equal(outcome.returnValue, dataBytes);
    assert.equal(checkOutcome(chacha20.oracle(input), outcome), null, `${dataBytes} bytes`);
  }
});

test('the block counter wraps from 0xFFFFFFFF to 0 as a 32-bit word', () => {
  // Zero data, so the output is the keystream itself.
  const base = concat(chacha20.generate(9, 48), new Uint8Array(200));
  const wrapped = runOnce(kernel, withCounter(base, 0xffffffff));
  assert.equal(checkOutcome(chacha20.oracle(withCounter(base, 0xffffffff)), wrapped), null);
  // Bytes 64.. use counters 0, 1, 2: the keystream that starting at counter 0 gives first.
  const fromZero = runOnce(kernel, withCounter(base, 0));
  assert.deepEqual(wrapped.output.subarray(64), fromZero.output.subarray(0, 136));
  assert.notDeepEqual(wrapped.output.subarray(0, 64), fromZero.output.subarray(0, 64));
});

test('decrypting the ciphertext gives the data back', () => {
  const input = chacha20.generate(4, 48 + 1000);
  const once = runOnce(kernel, input);
  const twice = runOnce(kernel, concat(input.subarray(0, 48), once.output));
  assert.deepEqual(twice.output, input.subarray(48));
});

test('an input shorter than the 48-byte header is rejected by validateInput and by the kernel', () => {
  assert.match(chacha20.validateInput?.(new Uint8Array(47)) ?? '', /47 bytes, shorter than the 48-byte header; expected key \(32 bytes\)/);
  assert.equal(chacha20.validateInput?.(new Uint8Array(48)), null);
  for (const length of [0, 1, 47]) {
    const outcome = runOnce(kernel, new Uint8Array(length));
    assert.equal(outcome.returnValue, 0xffffffff);
    assert.equal(outcome.output.length, 0);
  }
});
