// A TaskPool thread. It owns private contexts (one: it runs one job at a time), resets each
// after every operation under the sample's policy, and takes its jobs from shared memory:
// it spins briefly on the generation counter, then sleeps in Atomics.wait, so a run of jobs
// costs one wake-up at most, never one per job.
import { parentPort, workerData } from 'node:worker_threads';
import { collectGarbage } from '../collect.ts';
import { KernelContext } from '../context.ts';
import { createResetter, withFault, type Resetter } from '../reset-policies.ts';
import { privateCopy } from '../snapshot.ts';
import { compareWithSnapshot } from '../state-check.ts';
import type { LoadMessage, PoolToWorker, UnloadedMessage, WorkerSetup, WorkerToPool } from './protocol.ts';
import {
  COMMAND_STOP,
  CONTROL,
  DISPATCH_BATCHED,
  JOB_OK,
  JOB_OUTPUT_TOO_LARGE,
  JOB_THREW,
  viewSampleBuffers,
  type SampleViews,
} from './shared-buffers.ts';

const setup = workerData as WorkerSetup;
const port = parentPort;
if (!port) throw new Error('the TaskPool worker must run in a worker thread');
const control = new Int32Array(setup.control);

function send(message: WorkerToPool): void {
  port?.postMessage(message);
}

/** Wait until the generation differs from `seen`: spin for `spinMs`, then sleep until notified. */
function awaitGeneration(seen: number, spinMs: number): number {
  const deadline = performance.now() + spinMs;
  let spins = 0;
  for (;;) {
    const generation = Atomics.load(control, CONTROL.GENERATION);
    if (generation !== seen) return generation;
    if ((++spins & 63) === 0 && performance.now() > deadline) Atomics.wait(control, CONTROL.GENERATION, seen);
  }
}

interface Loaded {
  /** Workers in this sample (this one among them). */
  width: number;
  context: KernelContext;
  resetter: Resetter;
  views: SampleViews;
  pageSize: number;
  errors: Set<string>;
}

/** One operation: write the input, call the kernel, copy out the result, reset. */
function operate(s: Loaded, job: number, input: Uint8Array): void {
  const { context, resetter, views } = s;
  let status = JOB_OK;
  let returnValue = 0;
  let outputLength = 0;
  let t1 = 0;
  let t2 = 0;
  try {
    context.writeInput(input);
    t1 = performance.now();
    returnValue = context.run(input.length);
    t2 = performance.now();
    outputLength = context.outputLength();
    if (outputLength > views.outputSlotBytes) status = JOB_OUTPUT_TOO_LARGE;
    else views.outputs.set(context.output(outputLength), job * views.outputSlotBytes);
  } catch (error) {
    status = JOB_THREW;
    if (t2 === 0) t2 = performance.now();
    s.errors.add(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
  const t3 = performance.now();
  resetter.reset(context);
  const t4 = performance.now();
  views.kernelNs[job] = (t2 - t1) * 1e6;
  views.resetNs[job] = (t4 - t3) * 1e6;
  views.returnValues[job] = returnValue;
  views.outputLengths[job] = outputLength;
  views.status[job] = status;
}

function runJobs(s: Loaded): void {
  const jobs = Atomics.load(control, CONTROL.JOB_COUNT);
  const { input, inputIndex } = s.views;
  const inputs = Array.from({ length: Atomics.load(control, CONTROL.INPUT_COUNT) }, (_, k) => {
    const offset = inputIndex[2 * k] ?? 0;
    return input.subarray(offset, offset + (inputIndex[2 * k + 1] ?? 0));
  });
  const n = inputs.length;
  if (Atomics.load(control, CONTROL.MODE) === DISPATCH_BATCHED) {
    const width = s.width;
    const end = Math.floor(((setup.index + 1) * jobs) / width);
    for (let j = Math.floor((setup.index * jobs) / width); j < end; j++) operate(s, j, inputs[j % n] as Uint8Array);
  } else {
    for (let j = Atomics.add(control, CONTROL.NEXT_JOB, 1); j < jobs; j = Atomics.add(control, CONTROL.NEXT_JOB, 1)) operate(s, j, inputs[j % n] as Uint8Array);
  }
}

/** Serve RUN commands until STOP. Blocks this thread's event loop on purpose: nothing else runs here. */
function serve(s: Loaded, seen: number): void {
  const spinMs = Atomics.load(control, CONTROL.SPIN_MICROS) / 1000;
  for (;;) {
    const generation = awaitGeneration(seen, spinMs);
    seen = generation;
    if (Atomics.load(control, CONTROL.COMMAND) === COMMAND_STOP) return;
    runJobs(s);
    Atomics.store(control, CONTROL.WORKER_DONE + setup.index, generation);
    if (Atomics.add(control, CONTROL.DONE, 1) + 1 === s.width) Atomics.notify(control, CONTROL.DONE);
  }
}

/**
 * The arena and the snapshot copy this thread reuses from sample to sample (zeroed and
 * rewritten each time): a thread that made new ones per sample would page-fault 16 MiB per
 * sample and leave them for a collector that never runs while the thread sits idle.
 */
let reusableArena: WebAssembly.Memory | null = null;
let reusableSource: Uint8Array | null = null;

/** Create the sample's context; null (after telling the pool why) when that fails. */
function create(message: LoadMessage): Loaded | null {
  try {
    const context = new KernelContext(message.module, message.snapshot, reusableArena ?? undefined);
    const source = privateCopy(message.snapshot, reusableSource ?? undefined);
    reusableArena = context.instance.memory;
    reusableSource = source.arena;
    const policyReset = createResetter(message.policy, source, message.pageSize);
    const resetter = message.fault ? withFault(policyReset, message.fault, message.pageSize) : policyReset;
    const width = Atomics.load(control, CONTROL.ACTIVE_WIDTH);
    return { width, context, resetter, views: viewSampleBuffers(message.buffers), pageSize: message.pageSize, errors: new Set() };
  } catch (error) {
    send({ type: 'failed', worker: setup.index, message: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

/** Serve the sample, then check the context's final state; the context dies with this frame. */
function serveAndCheck(message: LoadMessage): Omit<UnloadedMessage, 'type' | 'worker' | 'contexts'> | null {
  // Read before replying: the pool bumps the generation only after every worker is ready.
  const seen = Atomics.load(control, CONTROL.GENERATION);
  const loaded = create(message);
  if (!loaded) return null;
  send({ type: 'ready', worker: setup.index });
  serve(loaded, seen);
  const failures = compareWithSnapshot(loaded.context, loaded.pageSize).map((f) => `context ${setup.index}: ${f}`);
  return { failures, errors: [...loaded.errors] };
}

function load(message: LoadMessage): void {
  const report = serveAndCheck(message);
  if (!report) return;
  // `fresh` made a new instance and memory per operation; they are unreachable now. Collect
  // before the pool hears back, since collecting later could overlap another arm's timed repeats.
  if (message.policy === 'fresh') collectGarbage();
  send({ type: 'unloaded', worker: setup.index, contexts: 1, ...report });
}

port.on('message', (message: PoolToWorker) => {
  if (message.type === 'load') load(message);
});
send({ type: 'started', worker: setup.index });
