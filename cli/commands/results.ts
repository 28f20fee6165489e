// `benchfleet results RUN --out DIR`: copy a run's folder from the coordinator and verify it
// against its manifest, so what you analyze is provably what the coordinator stored. Each file
// is streamed over HTTP(S) and checked against the coordinator's listing as it arrives.
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { BenchfleetError } from '../../shared/errors.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { printJson, printLine } from '../output.ts';

interface Args extends ConnectionArgs { run: string; out: string; json: boolean }

export const resultsCommand: CommandModule<object, Args> = {
  command: 'results <run>',
  describe: 'Copy a run\'s files from the coordinator into a folder and verify its manifest',
  builder: (y) =>
    connectionOptions(
      y
        .positional('run', { type: 'string', demandOption: true, describe: 'Run id' })
        .option('out', { type: 'string', demandOption: true, describe: 'Folder to create (must be absent or empty)' })
        .option('json', { type: 'boolean', default: false, describe: 'Print { runId, dir, files, manifest }' }),
    ),
  handler: async (args) => {
    const { controlTarget } = await import('../control-client.ts');
    const { validateRunId } = await import('../../shared/protocol/validate.ts');
    const { downloadRun } = await import('../run-download.ts');
    const { readManifest, verifyManifest } = await import('../../analysis/raw/manifest.ts');
    const out = resolve(args.out);
    const existing = await readdir(out).catch(() => [] as string[]);
    if (existing.length > 0) throw new BenchfleetError('OUTPUT_EXISTS', `--out ${args.out} is not empty; give a new folder (nothing was overwritten)`);
    // Files come over plain HTTP(S), streamed and checked one by one; the run must have finished.
    const target = await controlTarget(args, { timeoutMs: 120_000 });
    const listing = await downloadRun(target, validateRunId(args.run, 'RUN'), out);
    const files = listing.files;
    const verdict = await verifyManifest(out);
    if (args.json) printJson({ runId: args.run, dir: out, files: files.length, manifest: verdict });
    else {
      printLine(`copied ${files.length} files of run ${args.run} into ${out}`);
      // "copied 12" then "10 match" read as two files lost: the manifest does not list itself
      // (nor the files written after it), so the two counts are said with what lies between.
      const listed = new Set((await readManifest(out)).files.map((f) => f.path));
      const unlisted = files.map((f) => f.path).filter((p) => !listed.has(p)).sort();
      const besides = unlisted.length === 0 ? '' : `; the other ${unlisted.length} copied (${unlisted.join(', ')}) ${unlisted.length === 1 ? 'is' : 'are'} not in it`;
      printLine(verdict.ok ? `manifest verified: the ${verdict.checked} files it lists match their byte length and SHA256${besides}` : `manifest does NOT verify: ${verdict.differences.map((d) => `${d.path} ${d.problem}`).join(', ')}`);
    }
    if (!verdict.ok) process.exitCode = 1;
  },
};
