// `benchfleet manifest DIR [--verify]`: write manifest.json for a result folder, or check the
// folder against it, naming each file that is missing, changed or not listed (exit 1).
import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import { MANIFEST_FILE, verifyManifest, writeManifest, type ManifestDifference } from '../../analysis/raw/manifest.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { printJson, printLine } from '../output.ts';

interface Args { dir: string; verify: boolean; json: boolean }

function describe(d: ManifestDifference): string {
  const short = (x: { bytes: number; sha256: string }) => `${x.bytes} B, sha256 ${x.sha256.slice(0, 12)}`;
  if (d.problem === 'missing') return `missing:   ${d.path} (listed as ${short(d.expected as { bytes: number; sha256: string })})`;
  if (d.problem === 'unlisted') return `unlisted:  ${d.path} (not in ${MANIFEST_FILE})`;
  return `changed:   ${d.path} (listed ${short(d.expected as { bytes: number; sha256: string })}, now ${short(d.actual as { bytes: number; sha256: string })})`;
}

export const manifestCommand: CommandModule<object, Args> = {
  command: 'manifest <dir>',
  describe: 'Write manifest.json (byte length and SHA256 of every artifact) for a result folder, or --verify it',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: 'Result folder or run folder' })
      .option('verify', { type: 'boolean', default: false, describe: 'Check the folder against its manifest; exit 1 naming each difference' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the manifest, or the verdict, as JSON' })
      .example('$0 manifest results/study', 'write results/study/manifest.json')
      .example('$0 manifest results/study --verify', 'check that nothing changed since'),
  handler: async (args) => {
    if (!args.verify) {
      const manifest = await writeManifest(args.dir);
      if (args.json) return printJson(manifest);
      const bytes = manifest.files.reduce((n, f) => n + f.bytes, 0);
      return printLine(`wrote ${join(args.dir, MANIFEST_FILE)}: ${manifest.files.length} files, ${bytes} bytes`);
    }
    const verdict = await verifyManifest(args.dir);
    if (args.json) printJson(verdict);
    else if (verdict.ok) printLine(`${args.dir}: all ${verdict.checked} files match ${MANIFEST_FILE}`);
    else for (const d of verdict.differences) printLine(describe(d));
    if (!verdict.ok) {
      const n = verdict.differences.length;
      throw new BenchfleetError('MANIFEST_MISMATCH', `${n} file${n === 1 ? '' : 's'} in ${args.dir} differ from its ${MANIFEST_FILE}`);
    }
  },
};
