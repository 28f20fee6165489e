// `benchfleet build-corpus`: compile every kernel to wasm and write the corpus manifest.
import type { CommandModule } from 'yargs';
import { CORPUS_DIR } from '../../kernels/corpus.ts';
import { printJson, printLine } from '../output.ts';

interface Args { out: string; kernel: string[] | undefined; quiet: boolean; json: boolean }

export const buildCorpusCommand: CommandModule<object, Args> = {
  command: 'build-corpus',
  describe: 'Compile the AssemblyScript kernels to wasm and write the corpus manifest (npm install runs this)',
  builder: (y) =>
    y
      .option('out', { type: 'string', default: CORPUS_DIR, describe: 'Folder for the .wasm modules and manifest.json' })
      .option('kernel', { type: 'string', array: true, describe: 'Build only these kernels (repeatable)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print only the summary line' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the manifest as JSON' }),
  handler: async (args) => {
    const { buildCorpus } = await import('../../kernels/build/build-corpus.ts');
    const started = performance.now();
    const manifest = await buildCorpus({
      outDir: args.out,
      ...(args.kernel ? { only: args.kernel } : {}),
      onProgress: (name, done, total) => {
        if (!args.quiet && !args.json) process.stderr.write(`  built ${name} (${done}/${total})\n`);
      },
    });
    if (args.json) return printJson(manifest);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    printLine(`benchfleet: built ${manifest.kernels.length} kernels into ${args.out} in ${seconds} s`);
  },
};
