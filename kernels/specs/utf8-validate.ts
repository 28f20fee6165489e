// UTF-8 validation (RFC 3629). Oracle: the WHATWG TextDecoder in fatal mode, which throws on
// exactly the ill-formed sequences RFC 3629 forbids (overlongs, surrogates, > U+10FFFF, cut-off).
import { kernelRng } from '../inputs.ts';
import type { Rng } from '../../shared/prng.ts';
import type { KernelSpec } from '../spec.ts';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Encodes code point `cp` as UTF-8 into `out` at `at`; returns the bytes written. */
function encodeCodePoint(cp: number, out: Uint8Array, at: number): number {
  if (cp < 0x80) {
    out[at] = cp;
    return 1;
  }
  if (cp < 0x800) {
    out[at] = 0xc0 | (cp >>> 6);
    out[at + 1] = 0x80 | (cp & 0x3f);
    return 2;
  }
  if (cp < 0x10000) {
    out[at] = 0xe0 | (cp >>> 12);
    out[at + 1] = 0x80 | ((cp >>> 6) & 0x3f);
    out[at + 2] = 0x80 | (cp & 0x3f);
    return 3;
  }
  out[at] = 0xf0 | (cp >>> 18);
  out[at + 1] = 0x80 | ((cp >>> 12) & 0x3f);
  out[at + 2] = 0x80 | ((cp >>> 6) & 0x3f);
  out[at + 3] = 0x80 | (cp & 0x3f);
  return 4;
}

/** A code point whose UTF-8 form is `bytes` long, drawn uniformly from that range (surrogates skipped). */
function codePointOfLength(rng: Rng, bytes: number): number {
  switch (bytes) {
    case 1: return 0x20 + rng.below(0x7f - 0x20);
    case 2: return 0x80 + rng.below(0x800 - 0x80);
    case 3: {
      // U+0800..U+FFFF without the 2048 surrogates U+D800..U+DFFF.
      const cp = 0x800 + rng.below(0x10000 - 0x800 - 0x800);
      return cp >= 0xd800 ? cp + 0x800 : cp;
    }
    default: return 0x10000 + rng.below(0x110000 - 0x10000);
  }
}

/**
 * `size` bytes of valid UTF-8: runs of ASCII (like markup or Latin text) between runs of 2-, 3-
 * and 4-byte sequences, so a validator meets both its fast ASCII path and every multi-byte form.
 */
export function mixedUtf8(rng: Rng, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let i = 0;
  while (i < size) {
    const bytes = 1 + rng.below(4);
    const run = 1 + rng.below(bytes === 1 ? 24 : 8);
    for (let k = 0; k < run && i < size; k++) {
      const width = i + bytes <= size ? bytes : 1; // the tail is padded with ASCII
      i += encodeCodePoint(codePointOfLength(rng, width), out, i);
    }
  }
  return out;
}

export const utf8Validate: KernelSpec = {
  name: 'utf8-validate',
  title: 'UTF-8 validate',
  category: 'validation',
  reads: 'verdict',
  defaultSize: 512 * 1024,
  convention: 'input: any bytes (generated: valid UTF-8 mixing 1- to 4-byte sequences); returns 1 if valid UTF-8 (RFC 3629), else 0; output: nothing',
  generate: (seed, size) => mixedUtf8(kernelRng('utf8-validate', seed), size),
  oracle(input) {
    let valid = 1;
    try {
      decoder.decode(input);
    } catch {
      valid = 0;
    }
    return { kind: 'exact', returnValue: valid, output: new Uint8Array(0) };
  },
};
