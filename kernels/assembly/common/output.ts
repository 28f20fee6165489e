// The output-length register shared by every kernel: `run` sets it, the host reads it
// through the exported `output_len` function.
let outputLength: i32 = 0;

export function setOutputLength(length: i32): void {
  outputLength = length;
}

export function output_len(): i32 {
  return outputLength;
}
