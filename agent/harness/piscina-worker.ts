// The Piscina arm's worker: a conventional pool worker. It keeps one long-lived context (the
// current sample's kernel), never resets it, and runs the jobs a task carries. It loads the
// kernel's module itself, as a user of a conventional pool would, checking the file's SHA256.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createArena, instantiateKernel, writeInput, type KernelInstance } from '../../kernels/instance.ts';
import { collectGarbage } from './collect.ts';
import type { PiscinaJobResult, PiscinaJobTask, PiscinaReleaseResult, PiscinaTask } from './piscina-protocol.ts';

const modules = new Map<string, WebAssembly.Module>();
let current: { token: string; instance: KernelInstance } | null = null;

function moduleFor(task: PiscinaJobTask): WebAssembly.Module {
  let module = modules.get(task.moduleSha256);
  if (!module) {
    const bytes = readFileSync(task.modulePath);
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== task.moduleSha256) throw new Error(`${task.modulePath} has SHA256 ${digest}, the harness expects ${task.moduleSha256}`);
    module = new WebAssembly.Module(bytes);
    modules.set(task.moduleSha256, module);
  }
  return module;
}

/** Piscina's entry: run a task's jobs, or drop the context once the sample is over. */
export default function handle(task: PiscinaTask): PiscinaJobResult | PiscinaReleaseResult {
  if (task.type === 'jobs') return runJobs(task);
  // The context and its memory go now, not at some later collection: an idle worker would keep
  // its arena's touched pages resident (15 Piscina threads held ~8 MiB each otherwise).
  const released = current !== null;
  current = null;
  collectGarbage();
  return { released };
}

function runJobs(task: PiscinaJobTask): PiscinaJobResult {
  if (current?.token !== task.token) current = { token: task.token, instance: instantiateKernel(moduleFor(task), createArena()) };
  const instance = current.instance;
  const exports = instance.exports;
  const { outputPtr } = instance.layout;
  const result: PiscinaJobResult = { returnValues: [], outputs: [], kernelNs: 0, errors: [] };
  let kernelMs = 0;
  for (let j = 0; j < task.count; j++) {
    try {
      const input = task.inputs[j % task.inputs.length] as Uint8Array;
      writeInput(instance, input);
      const t1 = performance.now();
      const returnValue = exports.run(input.length) >>> 0;
      kernelMs += performance.now() - t1;
      result.returnValues.push(returnValue);
      const length = exports.output_len();
      if (length < 0 || length > instance.layout.outputCap) throw new RangeError(`the kernel reported an output length of ${length} bytes, outside its output region`);
      result.outputs.push(new Uint8Array(instance.memory.buffer, outputPtr, length).slice());
    } catch (error) {
      result.returnValues.push(null);
      result.outputs.push(new Uint8Array(0));
      result.errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }
  result.kernelNs = kernelMs * 1e6;
  return result;
}
