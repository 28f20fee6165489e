// The names of the corpus's kernels, without their specs: what the coordinator and the CLI need
// to check a plan's kernel list. kernels/catalog.ts holds the specs (inputs, oracles and their
// packages: about ten times the import time) and refuses to load if its specs and this list
// ever name different kernels.

/** Every kernel of the corpus, sorted as kernels/catalog.ts sorts its specs (localeCompare). */
export const KERNEL_NAMES: readonly string[] = [
  'adler32',
  'aes-cbc-decrypt',
  'aes-cbc-encrypt',
  'base64-decode',
  'base64-encode',
  'chacha20',
  'crc32',
  'hmac-sha256',
  'inflate',
  'lz4-compress',
  'lz4-decompress',
  'matmul-f64',
  'md5',
  'murmur3',
  'sha1',
  'sha256',
  'sha512',
  'siphash24',
  'sort-u32',
  'utf8-validate',
  'xxhash32',
];

/** A fresh copy of KERNEL_NAMES, for a caller that may change its array. */
export function kernelNames(): string[] {
  return [...KERNEL_NAMES];
}
