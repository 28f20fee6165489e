// `benchfleet kernel run NAME --input FILE`: one call of one kernel in a fresh context.
import { writeFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import { findKernel } from '../../kernels/catalog.ts';
import { loadKernelModule, sha256Hex } from '../../kernels/corpus.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { readInputFile } from '../read-input.ts';
import { printJson, printLine } from '../output.ts';

interface RunArgs { name: string; input: string; out: string | undefined; json: boolean }

const runCommand: CommandModule<object, RunArgs> = {
  command: 'run <name>',
  describe: 'Run one kernel once, in a fresh context, on the bytes of a file',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'Kernel name (see `benchfleet kernels`)' })
      .option('input', { type: 'string', demandOption: true, describe: 'File whose bytes are the input (docs/kernels.md gives each format)' })
      .option('out', { type: 'string', describe: 'Write the output bytes to this file' })
      .option('json', { type: 'boolean', default: false, describe: 'Print { kernel, return, outputBytes, outputSha256 }' })
      .example('$0 kernel run sha256 --input README.md', 'print the SHA-256 kernel\'s return value for a file'),
  handler: async (args) => {
    const spec = findKernel(args.name);
    const input = await readInputFile(args.input);
    const rejection = spec.validateInput?.(input);
    if (rejection) throw new BenchfleetError('INPUT_MALFORMED', `${args.input}: ${rejection}`);
    const kernel = instantiateKernel(loadKernelModule(spec.name));
    if (input.length > kernel.layout.inputCap) {
      throw new BenchfleetError('INPUT_TOO_LARGE', `${args.input} is ${input.length} bytes; ${spec.name} takes at most ${kernel.layout.inputCap} bytes of input`);
    }
    let outcome;
    try {
      outcome = runOnce(kernel, input);
    } catch (error) {
      if (error instanceof WebAssembly.RuntimeError) {
        throw new BenchfleetError('KERNEL_REJECTED_INPUT', `${spec.name} could not process ${args.input} (${error.message}); docs/kernels.md describes the input it expects`);
      }
      throw error;
    }
    if (args.out) await writeFile(args.out, outcome.output);
    if (args.json) {
      printJson({ kernel: spec.name, return: outcome.returnValue, outputBytes: outcome.output.length, outputSha256: sha256Hex(outcome.output) });
    } else {
      printLine(String(outcome.returnValue));
    }
  },
};

export const kernelCommand: CommandModule = {
  command: 'kernel <action>',
  describe: 'Work with one kernel (`kernel run NAME --input FILE`)',
  builder: (y: Argv) => y.command(runCommand).demandCommand(1, 'Name an action: run'),
  handler: () => undefined,
};
