// The part of the lz4js package (CommonJS, no bundled types) that the kernel oracles use,
// after node_modules/lz4js/lz4.js. Blocks are raw LZ4 blocks, without the frame format.
declare module 'lz4js' {
  interface Lz4js {
    /** Decodes the block src[sIndex, sIndex + sLength) into dst from dIndex; returns the end index in dst. No bounds checks. */
    decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
    /** Encodes src[sIndex, sIndex + sLength) as one block into dst; returns its length, or 0 when it found no match at all. */
    compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
    /** Worst-case compressed size of n bytes. */
    compressBound(n: number): number;
  }
  const lz4js: Lz4js;
  export = lz4js;
}
