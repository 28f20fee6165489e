// A plan's own module, made ready for the runner like a built-in kernel (prepared-kernel.ts):
// the carried bytes checked against their pinned SHA-256 before anything is compiled, checked
// against the context contract and rewritten to it (kernels/user-module/prepare.ts), its inputs
// (generated, carried files or argument lists), and its oracle. The oracle is a fresh instance:
// for each input, a new instance on a new arena runs it once, and every job of every sample
// must give the same return value and output bytes (and every context must come back to the
// fresh instance's state, the runner's final-state check). A fresh instance that traps fails
// every job of that input, with the trap as the reason; an output whose SHA-256 differs from
// the plan's `expected` fails them too.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kernelRng, jobSeed, randomBytes, textBytes } from '../../kernels/inputs.ts';
import { createArena, instantiateKernel, runOnce, type KernelInstance } from '../../kernels/instance.ts';
import type { Expectation, KernelOutcome } from '../../kernels/spec.ts';
import { prepareUserModule } from '../../kernels/user-module/prepare.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { Plan } from '../../shared/plan.ts';
import { decodeBase64, moduleBytes, moduleInputNames, type UserModule } from '../../shared/plan-modules.ts';
import { sharedInputsOf, type PreparedKernel } from './prepared-kernel.ts';
import { OutcomeChecker } from './sample-checks.ts';

const log = createLogger('harness:module');
const I64 = 0x7e;

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Each job's input bytes: generated, carried files, or argument lists as 8-byte little-endian words. */
function moduleInputs(spec: UserModule, plan: Plan, params: readonly number[]): Uint8Array[] {
  const varying = plan.inputs === 'varying';
  const given = spec.inputs;
  if ('files' in given) {
    const files = given.files.map((f, i) => decodeBase64(f.base64, `plan module ${spec.name} inputs.files[${i}]`));
    return varying ? files : files.slice(0, 1);
  }
  if ('args' in given) {
    const lists = varying ? given.args : given.args.slice(0, 1);
    return lists.map((args) => {
      const bytes = new Uint8Array(8 * args.length);
      const view = new DataView(bytes.buffer);
      args.forEach((n, i) => view.setBigInt64(8 * i, params[i] === I64 ? BigInt(n) : BigInt.asIntN(32, BigInt(n)), true));
      return bytes;
    });
  }
  const count = varying ? plan.jobs : 1;
  return Array.from({ length: count }, (_, k) => {
    const rng = kernelRng(spec.name, jobSeed(given.seed, k));
    return given.text ? textBytes(rng, given.size) : randomBytes(rng, given.size);
  });
}

/** The fresh instance's outcome of one input, or why it has none (it trapped). */
function freshOutcome(module: WebAssembly.Module, input: Uint8Array): KernelOutcome | string {
  try {
    return runOnce(instantiateKernel(module, createArena()), input);
  } catch (error) {
    return errorMessage(error);
  }
}

export interface PreparedUserKernel {
  kernel: PreparedKernel;
  /** SHA-256 of the fresh-instance oracle's outcomes (per input: return value, output length, output), for the environment row. */
  oracleSha256: string;
}

/**
 * Prepare a plan's module; `workDir` receives the rewritten module file that the Piscina arm's
 * workers load (and check by its SHA-256) as they load a corpus module.
 */
export function prepareUserKernel(spec: UserModule, plan: Plan, workDir: string, arena?: WebAssembly.Memory): PreparedUserKernel {
  const bytes = moduleBytes(spec);
  const digest = sha256Hex(bytes);
  if (digest !== spec.sha256) throw new BenchfleetError('MODULE_REFUSED', `module "${spec.name}": its bytes have SHA-256 ${digest}, but the plan pins ${spec.sha256}; nothing was compiled`);
  const prepared = prepareUserModule(spec, bytes);
  const module = new WebAssembly.Module(prepared.plain);
  try {
    instantiateKernel(module);
  } catch (error) {
    throw new BenchfleetError('MODULE_REFUSED', `module "${spec.name}" cannot be instantiated: ${errorMessage(error)}`);
  }
  const tracked = plan.policies.includes('tracked');
  const trackedModule = tracked ? new WebAssembly.Module(prepared.tracked) : null;
  const inputs = moduleInputs(spec, plan, prepared.entryParams);
  const names = moduleInputNames(spec, plan.jobs, plan.inputs === 'varying');
  inputs.forEach((input, k) => {
    if (input.length > prepared.layout.inputCap) {
      throw new BenchfleetError('PLAN_INVALID', `plan module ${spec.name}: input ${names[k]} is ${input.length} bytes; its input region (input.capacity) holds ${prepared.layout.inputCap}`);
    }
  });
  const oracle = createHash('sha256');
  let freshBytes = 0;
  const checkers = inputs.map((input, k) => {
    const name = names[k] ?? `input ${k}`;
    const fresh = freshOutcome(module, input);
    if (typeof fresh === 'string') {
      log.warn(`${spec.name}: a fresh instance traps on input ${name} (${fresh}); its samples will be marked failed`);
      oracle.update(`trap:${fresh}\n`);
      const reason = `a fresh instance of ${spec.name} traps on input ${name}: ${fresh}`;
      return new OutcomeChecker({ kind: 'verify', verify: () => reason });
    }
    freshBytes = Math.max(freshBytes, fresh.output.length);
    const head = new Uint8Array(8);
    new DataView(head.buffer).setUint32(0, fresh.returnValue >>> 0, true);
    new DataView(head.buffer).setUint32(4, fresh.output.length, true);
    oracle.update(head).update(fresh.output);
    const pinned = spec.expected?.[name];
    const outputSha = sha256Hex(fresh.output);
    if (pinned !== undefined && pinned !== outputSha) {
      const reason = `output of input ${name} has SHA-256 ${outputSha}, but the plan expects ${pinned}`;
      log.warn(`${spec.name}: ${reason}; its samples will be marked failed`);
      return new OutcomeChecker({ kind: 'verify', verify: () => reason });
    }
    const expectation: Expectation = { kind: 'exact', returnValue: fresh.returnValue, output: fresh.output };
    return new OutcomeChecker(expectation);
  });
  // The reference runs, as for a built-in kernel: one instance (on the shared arena) runs every
  // input in turn, then the twin; a module whose calls leak into each other shows here first.
  const reference = (instance: KernelInstance, what: string): number => {
    let outputBytes = 0;
    inputs.forEach((input, k) => {
      try {
        const outcome = runOnce(instance, input);
        const problem = (checkers[k] as OutcomeChecker).check(outcome.returnValue, outcome.output);
        if (problem) log.warn(`${spec.name}: ${what} of input ${names[k]} disagrees with a fresh instance (${problem}); its samples will be marked failed`);
        outputBytes = Math.max(outputBytes, outcome.output.length);
      } catch (error) {
        log.warn(`${spec.name}: ${what} of input ${names[k]} traps (${errorMessage(error)})`);
      }
    });
    return outputBytes;
  };
  if (arena) new Uint8Array(arena.buffer).fill(0);
  const outputBytes = reference(instantiateKernel(module, arena), 'the reference run');
  if (trackedModule) {
    if (arena) new Uint8Array(arena.buffer).fill(0);
    reference(instantiateKernel(trackedModule, arena), "the tracked twin's reference run");
  }
  const fileSha256 = sha256Hex(prepared.plain);
  const modulePath = join(workDir, `${fileSha256}.wasm`);
  writeFileSync(modulePath, prepared.plain);
  return {
    kernel: {
      name: spec.name,
      module,
      modulePath,
      fileSha256,
      moduleSha256: spec.sha256,
      trackedModule,
      trackedSha256: tracked ? sha256Hex(prepared.tracked) : null,
      inputs,
      ...sharedInputsOf(inputs),
      checkers,
      outputSlotBytes: Math.max(8, Math.ceil(Math.max(outputBytes, freshBytes) / 8) * 8),
    },
    oracleSha256: oracle.digest('hex'),
  };
}
