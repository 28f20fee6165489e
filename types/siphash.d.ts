// The part of the siphash package (CommonJS, no bundled types) that the kernel oracles use,
// after node_modules/siphash/lib/siphash.js: SipHash-2-4 with 64-bit arithmetic on u32 halves.
declare module 'siphash' {
  interface SipHashTag {
    /** High 32 bits of the 64-bit tag, unsigned. */
    h: number;
    /** Low 32 bits of the 64-bit tag, unsigned. */
    l: number;
  }
  interface SipHash {
    /** The tag of `message` (bytes, or a string taken as UTF-8) under `key`: four u32 words, k0 low, k0 high, k1 low, k1 high. */
    hash(key: Uint32Array, message: Uint8Array | string): SipHashTag;
    /** The tag as 16 hex digits, high word first. */
    hash_hex(key: Uint32Array, message: Uint8Array | string): string;
    /** A 16-byte UTF-8 string as the four little-endian key words. */
    string16_to_key(key: string): Uint32Array;
  }
  const siphash: SipHash;
  export = siphash;
}
