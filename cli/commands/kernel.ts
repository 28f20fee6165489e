// `benchfleet kernel run NAME --input FILE`: one kernel on a file's bytes, in fresh contexts:
// what it computed in its own terms (cli/kernel-result.ts) and its time per call.
import { writeFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import type { KernelOutcome, KernelSpec } from '../../kernels/spec.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { readInputFile } from '../read-input.ts';
import { printJson, printLine } from '../output.ts';
import { callTimes, describeResult, isRejection, type KernelRunResult } from '../kernel-result.ts';
import { timedCall } from '../timed-call.ts';

interface RunArgs {
  name: string;
  input: string;
  out: string | undefined;
  calls: number;
  json: boolean;
  entry: string | undefined;
  'input-at': string | undefined;
  'output-at': string | undefined;
  'output-length': string | undefined;
  stub: string[] | undefined;
  'memory-pages': number | undefined;
}

/** One call in a fresh context; only `run` itself is timed. */
function timedKernelCall(module: WebAssembly.Module, input: Uint8Array, spec: KernelSpec, file: string): { outcome: KernelOutcome; ns: number } {
  return timedCall(module, input, {
    tooLarge: (cap) => `${file} is ${input.length} bytes; ${spec.name} takes at most ${cap} bytes of input`,
    trapped: (error) => (error instanceof WebAssembly.RuntimeError ? `${spec.name} could not process ${file} (${error.message}); docs/kernels.md describes the input it expects` : null),
  });
}

const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <name>',
  describe: 'Run one kernel, in a fresh context, on the bytes of a file: print what it computed and its time per call',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'Kernel name (see `benchfleet kernels`), or a .wasm file of your own (with --entry, --input-at)' })
      .option('input', { type: 'string', demandOption: true, describe: 'File whose bytes are the input (docs/kernels.md gives each format)' })
      .option('out', { type: 'string', describe: 'Write the output bytes to this file' })
      .option('calls', { type: 'number', default: 5, describe: 'Calls to time, each in a fresh context; the time shown is their median' })
      .option('json', { type: 'boolean', default: false, describe: 'Print everything as JSON: return value, digest or output length and SHA256, times' })
      .option('entry', { type: 'string', describe: 'Your own module: the exported function to call with the input length' })
      .option('input-at', { type: 'string', describe: 'Your own module: the exported i32 global holding the input buffer\'s address' })
      .option('output-at', { type: 'string', describe: 'Your own module: the exported i32 global holding the output\'s address' })
      .option('output-length', { type: 'string', describe: 'Your own module: output bytes, or an exported () -> i32 function giving them' })
      .option('stub', { type: 'string', array: true, describe: 'Your own module: an import (module.name) to satisfy with a function that traps' })
      .option('memory-pages', { type: 'number', describe: 'Your own module: pages of the arena it may use (default: its own memory\'s)' })
      .example('$0 kernel run sha256 --input README.md', 'the SHA-256 digest of a file, in hex, and the time per call')
      .example('$0 kernel run inflate --input data.deflate --out data.txt', 'inflate a raw DEFLATE stream into a file')
      .example('$0 kernel run ./my.wasm --input FILE --entry run --input-at input', 'your own module, as a plan would run it (README "Your own module")'),
  handler: async (args) => {
    if (args.name.endsWith('.wasm')) {
      if (!Number.isInteger(args.calls) || args.calls < 1) throw new BenchfleetError('USAGE', `--calls must be a whole number of at least 1, got ${args.calls}`);
      const { runUserModule } = await import('../user-module-run.ts');
      await runUserModule({
        file: args.name, input: args.input, out: args.out, calls: args.calls, json: args.json, entry: args.entry,
        inputAt: args['input-at'], outputAt: args['output-at'], outputLength: args['output-length'], stub: args.stub, memoryPages: args['memory-pages'],
      });
      return;
    }
    const { findKernel } = await import('../../kernels/catalog.ts');
    const { loadKernelModule, sha256Hex } = await import('../../kernels/corpus.ts');
    if (!Number.isInteger(args.calls) || args.calls < 1) throw new BenchfleetError('USAGE', `--calls must be a whole number of at least 1, got ${args.calls}`);
    const spec = findKernel(args.name);
    const input = await readInputFile(args.input);
    const rejection = spec.validateInput?.(input);
    if (rejection) throw new BenchfleetError('INPUT_MALFORMED', `${args.input}: ${rejection}`);
    const module = loadKernelModule(spec.name);
    const first = timedKernelCall(module, input, spec, args.input);
    const outcome = first.outcome;
    const times = [first.ns];
    const rejected = isRejection(spec, outcome);
    for (let i = 1; i < args.calls && !rejected; i++) times.push(timedKernelCall(module, input, spec, args.input).ns);
    if (args.out && !rejected) await writeFile(args.out, outcome.output);
    const result: KernelRunResult = {
      kernel: spec.name,
      title: spec.title,
      reads: spec.reads,
      inputFile: args.input,
      inputBytes: input.length,
      return: outcome.returnValue,
      rejected,
      digestHex: spec.reads === 'digest' && !rejected ? Buffer.from(outcome.output).toString('hex') : null,
      verdict: spec.reads === 'verdict' ? outcome.returnValue === 1 : null,
      outputBytes: outcome.output.length,
      outputSha256: sha256Hex(outcome.output),
      outputFile: args.out && !rejected ? args.out : null,
      time: callTimes(times),
    };
    if (args.json) printJson(result);
    if (rejected) {
      throw new BenchfleetError('KERNEL_REJECTED_INPUT', `${spec.name} rejected ${args.input} (returned -1, no output): ${spec.rejects ?? 'input not accepted'}; docs/kernels.md describes the input it expects`);
    }
    if (!args.json) for (const line of describeResult(result)) printLine(line);
  },
};

export const kernelCommand: CommandModule = {
  command: 'kernel <action>',
  describe: 'Work with one kernel (`kernel run NAME --input FILE`)',
  builder: (y: Argv) => y.command(runCommand).demandCommand(1, 'Name an action: run'),
  handler: () => undefined,
};
