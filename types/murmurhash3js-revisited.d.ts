// The part of the murmurhash3js-revisited package (CommonJS, no bundled types) that the kernel
// oracles use, after node_modules/murmurhash3js-revisited/lib/murmurHash3js.js.
declare module 'murmurhash3js-revisited' {
  interface MurmurHash3 {
    x86: {
      /** MurmurHash3_x86_32 of `bytes` with `seed`, unsigned (undefined only for elements that are not bytes, which a Uint8Array cannot hold). */
      hash32(bytes: Uint8Array, seed?: number): number;
    };
  }
  const murmurhash3: MurmurHash3;
  export = murmurhash3;
}
