// `benchfleet kernel run ./my.wasm --input FILE --entry NAME ...`: a quick local try of a user's
// own module before it goes into a plan. The module is checked against the context contract and
// prepared exactly as a plan's module is (kernels/user-module/prepare.ts), then called on the
// file's bytes in fresh contexts; it prints the return value, the output's length and SHA-256
// (the hash a plan's `expected` takes) and the time per call.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { KernelOutcome } from '../kernels/spec.ts';
import { prepareUserModule } from '../kernels/user-module/prepare.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import type { ModuleOutput, UserModule } from '../shared/plan-modules.ts';
import { callTimes, describeResult, type KernelRunResult } from './kernel-result.ts';
import { printJson, printLine } from './output.ts';
import { readInputFile } from './read-input.ts';
import { timedCall } from './timed-call.ts';

export interface UserModuleRunArgs {
  file: string;
  input: string;
  out: string | undefined;
  calls: number;
  json: boolean;
  entry: string | undefined;
  inputAt: string | undefined;
  outputAt: string | undefined;
  outputLength: string | undefined;
  stub: string[] | undefined;
  memoryPages: number | undefined;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function timedModuleCall(module: WebAssembly.Module, input: Uint8Array, file: string, inputFile: string): { outcome: KernelOutcome; ns: number } {
  return timedCall(module, input, {
    tooLarge: (cap) => `${inputFile} is ${input.length} bytes; ${file}'s input region holds ${cap}`,
    trapped: (error) => `${file} trapped on ${inputFile}: ${errorMessage(error)}`,
  });
}

export async function runUserModule(args: UserModuleRunArgs): Promise<void> {
  if (!args.entry) throw new BenchfleetError('USAGE', `--entry names the exported function to call; ${args.file} is a module of your own, not a built-in kernel`);
  if (!args.inputAt) throw new BenchfleetError('USAGE', '--input-at names the exported global that holds the address of the input buffer');
  if (args.outputLength !== undefined && !args.outputAt) throw new BenchfleetError('USAGE', '--output-length needs --output-at (the exported global that holds the output\'s address)');
  const bytes = await readInputFile(args.file);
  const input = await readInputFile(args.input);
  let output: ModuleOutput | undefined;
  if (args.outputAt) {
    const length = args.outputLength ?? '';
    const asNumber = Number(length);
    if (length === '') throw new BenchfleetError('USAGE', '--output-at needs --output-length: a byte count, or an exported () -> i32 function that gives it');
    output = { at: args.outputAt, length: /^\d+$/.test(length) && asNumber > 0 ? asNumber : length };
  }
  const name = basename(args.file).replace(/\.wasm$/, '');
  const spec: UserModule = {
    name,
    sha256: sha256Hex(bytes),
    wasm: '',
    entry: args.entry,
    input: { abi: 'bytes', at: args.inputAt },
    ...(output ? { output } : {}),
    inputs: { seed: 0, size: Math.max(1, input.length) },
    ...(args.stub ? { stubs: args.stub } : {}),
    ...(args.memoryPages !== undefined ? { memoryPages: args.memoryPages } : {}),
  };
  const module = new WebAssembly.Module(prepareUserModule(spec, bytes).plain);
  const first = timedModuleCall(module, input, args.file, args.input);
  const times = [first.ns];
  for (let i = 1; i < args.calls; i++) times.push(timedModuleCall(module, input, args.file, args.input).ns);
  const outcome = first.outcome;
  if (args.out) await writeFile(args.out, outcome.output);
  const result: KernelRunResult & { moduleSha256: string } = {
    kernel: name,
    title: `${basename(args.file)} ${args.entry}`,
    reads: 'transform',
    inputFile: args.input,
    inputBytes: input.length,
    return: outcome.returnValue,
    rejected: false,
    digestHex: null,
    verdict: null,
    outputBytes: outcome.output.length,
    outputSha256: sha256Hex(outcome.output),
    outputFile: args.out ?? null,
    time: callTimes(times),
    moduleSha256: spec.sha256,
  };
  if (args.json) {
    printJson(result);
    return;
  }
  printLine(`returned ${outcome.returnValue} (0x${outcome.returnValue.toString(16).padStart(8, '0')})`);
  for (const line of describeResult(result)) printLine(line);
  printLine(`module SHA-256 ${spec.sha256} (the plan's "sha256")`);
}
