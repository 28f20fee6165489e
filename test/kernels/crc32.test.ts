// The crc32 kernel (slicing-by-8): the CRC-32 check value and zlib's crc32 around the 8-byte step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKernelModule } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { kernelRng, randomBytes } from '../../kernels/inputs.ts';
import { checkOutcome } from '../../kernels/spec.ts';
import { crc32 } from '../../kernels/specs/crc32.ts';

const kernel = instantiateKernel(loadKernelModule('crc32'));
const ascii = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));

test('crc32 gives the check value 0xCBF43926 for "123456789" and 0 for no bytes', () => {
  // The CRC-32 (IEEE 802.3, as in zlib and PKZIP) "check" value of the catalogue of
  // parametrised CRC algorithms (Greg Cook, CRC RevEng): CRC of the ASCII string "123456789".
  const check = runOnce(kernel, ascii('123456789'));
  assert.equal(check.returnValue, 0xcbf43926);
  assert.deepEqual(check.output, new Uint8Array([0xcb, 0xf4, 0x39, 0x26]));
  const empty = runOnce(kernel, new Uint8Array(0));
  assert.equal(empty.returnValue, 0);
  assert.deepEqual(empty.output, new Uint8Array(4));
});

test('crc32 agrees with zlib on both sides of the 8-byte step and on a long unaligned input', () => {
  const rng = kernelRng('crc32-test', 1);
  for (const size of [1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100_003]) {
    const input = randomBytes(rng, size);
    assert.equal(checkOutcome(crc32.oracle(input), runOnce(kernel, input)), null, `size ${size}`);
  }
});

test('crc32 agrees with zlib on all-zero and all-one bytes, which exercise table entries 0 and 255', () => {
  for (const fill of [0x00, 0xff]) {
    const input = new Uint8Array(4099).fill(fill);
    assert.equal(checkOutcome(crc32.oracle(input), runOnce(kernel, input)), null, `fill ${fill}`);
  }
});
