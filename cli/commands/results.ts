// `benchfleet results RUN --out DIR`: copy a run's folder from the coordinator and verify it
// against its manifest, so what you analyze is provably what the coordinator stored.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { CommandModule } from 'yargs';
import { verifyManifest } from '../../shared/analysis/manifest.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { connectControl, connectionOptions, unwrap, type ConnectionArgs } from '../control-client.ts';
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
    const out = resolve(args.out);
    const existing = await readdir(out).catch(() => [] as string[]);
    if (existing.length > 0) throw new BenchfleetError('OUTPUT_EXISTS', `--out ${args.out} is not empty; give a new folder (nothing was overwritten)`);
    const socket = await connectControl(args);
    let files;
    try {
      files = unwrap(await request<ControlToCoordinator, 'run:files'>(socket, 120_000, 'run:files', args.run));
    } finally {
      socket.close();
    }
    for (const file of files) {
      const target = resolve(out, file.path);
      // Paths come from the wire: never write outside --out.
      if (!target.startsWith(out + sep)) throw new BenchfleetError('PROTOCOL', `the coordinator sent a file path outside the run folder: ${file.path}`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.bytes);
    }
    const verdict = await verifyManifest(out);
    if (args.json) printJson({ runId: args.run, dir: out, files: files.length, manifest: verdict });
    else {
      printLine(`copied ${files.length} files of run ${args.run} into ${out}`);
      printLine(verdict.ok ? `manifest verified: ${verdict.checked} files match their byte length and SHA256` : `manifest does NOT verify: ${verdict.differences.map((d) => `${d.path} ${d.problem}`).join(', ')}`);
    }
    if (!verdict.ok) process.exitCode = 1;
  },
};
