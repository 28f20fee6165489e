// The TaskPool's shared memory: one control block per pool (generation counter, command, job
// claim index, completion count, each worker's last finished generation) and, per loaded
// sample, the input bytes (one input, or one per job when a plan's inputs vary) and the per-job
// results. Both sides build their views here, so the
// layout is written down once.

/** Slots of the control block (Int32Array). Hot counters sit on their own 64-byte lines. */
export const CONTROL = {
  /** Bumped by the pool to start a command; workers spin, then Atomics.wait, on it. */
  GENERATION: 0,
  COMMAND: 16,
  JOB_COUNT: 17,
  /** DISPATCH_BATCHED or DISPATCH_UNBATCHED. */
  MODE: 18,
  /** Inputs in the sample's input buffer; job j runs input j % INPUT_COUNT (see SampleBuffers.inputIndex). */
  INPUT_COUNT: 19,
  /** Workers in the loaded sample: the first ACTIVE_WIDTH threads; the rest are not loaded. */
  ACTIVE_WIDTH: 20,
  /** How long a worker spins on GENERATION before Atomics.wait, microseconds. */
  SPIN_MICROS: 21,
  /** Unbatched workers claim job indices from here with Atomics.add. */
  NEXT_JOB: 32,
  /** Workers done with the current generation; the last one notifies the pool. */
  DONE: 48,
  /** + worker index: the last generation that worker finished (for stall reports). */
  WORKER_DONE: 64,
} as const;

export const COMMAND_RUN = 1;
export const COMMAND_STOP = 2;
export const DISPATCH_BATCHED = 0;
export const DISPATCH_UNBATCHED = 1;

export const MAX_WIDTH = 64;

export function createControl(): SharedArrayBuffer {
  return new SharedArrayBuffer((CONTROL.WORKER_DONE + MAX_WIDTH) * 4);
}

/** Job outcome codes in the results' status array. */
export const JOB_OK = 0;
export const JOB_THREW = 1;
export const JOB_OUTPUT_TOO_LARGE = 2;

/** The buffers of one loaded sample, sent to every worker. */
export interface SampleBuffers {
  /** The inputs, one after another. */
  input: SharedArrayBuffer;
  /** Int32 pairs (byte offset in `input`, length), one per input; room for one input per job. */
  inputIndex: SharedArrayBuffer;
  /** Capacity in jobs: the most any one run() may ask for. */
  jobs: number;
  /** Bytes reserved for each job's output. */
  outputSlotBytes: number;
  results: SharedArrayBuffer;
  outputs: SharedArrayBuffer;
}

/** Bytes of per-job results: kernelNs and resetNs (f64), return value (u32), output length and status (i32). */
const RESULT_BYTES_PER_JOB = 8 + 8 + 4 + 4 + 4;

export function createSampleBuffers(inputBytes: number, jobs: number, outputSlotBytes: number): SampleBuffers {
  return {
    input: new SharedArrayBuffer(Math.max(inputBytes, 1)),
    inputIndex: new SharedArrayBuffer(8 * jobs),
    jobs,
    outputSlotBytes,
    results: new SharedArrayBuffer(RESULT_BYTES_PER_JOB * jobs),
    outputs: new SharedArrayBuffer(Math.max(jobs * outputSlotBytes, 1)),
  };
}

/** Typed views over a sample's buffers; index i is job i of the current run. */
export interface SampleViews {
  input: Uint8Array;
  inputIndex: Int32Array;
  kernelNs: Float64Array;
  resetNs: Float64Array;
  returnValues: Uint32Array;
  outputLengths: Int32Array;
  status: Int32Array;
  outputs: Uint8Array;
  outputSlotBytes: number;
}

export function viewSampleBuffers(b: SampleBuffers): SampleViews {
  const n = b.jobs;
  return {
    input: new Uint8Array(b.input),
    inputIndex: new Int32Array(b.inputIndex),
    kernelNs: new Float64Array(b.results, 0, n),
    resetNs: new Float64Array(b.results, 8 * n, n),
    returnValues: new Uint32Array(b.results, 16 * n, n),
    outputLengths: new Int32Array(b.results, 20 * n, n),
    status: new Int32Array(b.results, 24 * n, n),
    outputs: new Uint8Array(b.outputs),
    outputSlotBytes: b.outputSlotBytes,
  };
}
