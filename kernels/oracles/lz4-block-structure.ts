// Walks a raw LZ4 block's sequences without decoding them, after the LZ4 block format
// (lz4/doc/lz4_Block_format.md), written for the LZ4 oracles independently of the kernels.
// It says whether a block is well formed (every field inside the block, every offset non-zero
// and inside what was decoded so far, the last sequence literals only) and where its matches
// fall in the decoded bytes, so an oracle can check the format's end-of-block rules.

export interface Lz4BlockStructure {
  /** Bytes the block decodes to. */
  decodedLength: number;
  /** Sequences in the block, the final literals-only one included. */
  sequences: number;
  /** Where the last match starts and ends in the decoded bytes; -1 when the block has no match. */
  lastMatchStart: number;
  lastMatchEnd: number;
}

export type Lz4BlockWalk = { ok: true; block: Lz4BlockStructure } | { ok: false; reason: string };

function fail(reason: string): Lz4BlockWalk {
  return { ok: false, reason };
}

/** Walk `block`; `maxDecoded` is the destination's capacity (decoding more is an error). */
export function walkLz4Block(block: Uint8Array, maxDecoded: number): Lz4BlockWalk {
  if (block.length === 0) return fail('empty block (a block holds at least one token)');
  let i = 0;
  let decoded = 0;
  let sequences = 0;
  let lastMatchStart = -1;
  let lastMatchEnd = -1;
  for (;;) {
    if (i >= block.length) return fail(`block ends after a match at byte ${i}; the last sequence must be literals only`);
    const token = block[i++] as number;
    sequences++;
    let literals = token >>> 4;
    if (literals === 15) {
      let more = 255;
      while (more === 255) {
        if (i >= block.length) return fail(`literal length runs past the end of the block at byte ${i}`);
        more = block[i++] as number;
        literals += more;
      }
    }
    if (i + literals > block.length) return fail(`${literals} literals at byte ${i} run past the end of the block`);
    if (decoded + literals > maxDecoded) return fail(`decoded size exceeds ${maxDecoded} bytes`);
    i += literals;
    decoded += literals;
    if (i === block.length) break;
    if (i + 2 > block.length) return fail(`offset at byte ${i} runs past the end of the block`);
    const offset = (block[i] as number) | ((block[i + 1] as number) << 8);
    i += 2;
    if (offset === 0) return fail(`zero offset at byte ${i - 2}`);
    if (offset > decoded) return fail(`offset ${offset} at byte ${i - 2} reaches before the start of the output`);
    let matchLength = token & 15;
    if (matchLength === 15) {
      let more = 255;
      while (more === 255) {
        if (i >= block.length) return fail(`match length runs past the end of the block at byte ${i}`);
        more = block[i++] as number;
        matchLength += more;
      }
    }
    matchLength += 4;
    if (decoded + matchLength > maxDecoded) return fail(`decoded size exceeds ${maxDecoded} bytes`);
    lastMatchStart = decoded;
    decoded += matchLength;
    lastMatchEnd = decoded;
  }
  return { ok: true, block: { decodedLength: decoded, sequences, lastMatchStart, lastMatchEnd } };
}
