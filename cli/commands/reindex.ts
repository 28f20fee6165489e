// `benchfleet reindex --data DIR`: rebuild the coordinator's run index (DATA/index.sqlite) from
// the run folders, verifying each against its manifest. Safe beside a running coordinator: the
// rebuild is one transaction, and readers see the old index until it commits.
import type { CommandModule } from 'yargs';
import { printJson, printLine } from '../output.ts';

interface Args { data: string; json: boolean }

export const reindexCommand: CommandModule<object, Args> = {
  command: 'reindex',
  describe: "Rebuild the coordinator's run index (DATA/index.sqlite) from its run folders, each verified against its manifest",
  builder: (y) =>
    y
      .option('data', { type: 'string', demandOption: true, describe: "The coordinator's data folder" })
      .option('json', { type: 'boolean', default: false, describe: 'Print { indexed, skipped: [{ runId, reason }], seconds } as JSON' })
      .example('$0 reindex --data /srv/benchfleet', 'after copying run folders in, or to check every run against its manifest')
      .epilogue('A run folder whose files do not match its manifest is left out with a warning naming what differs; a run not finished yet is left out quietly. The coordinator rebuilds the index by itself when it is missing, damaged or of an older schema.'),
  handler: async (args) => {
    const { RunIndex } = await import('../../store/run-index/run-index.ts');
    const started = performance.now();
    const index = await RunIndex.open(args.data);
    try {
      // Opening a missing or outdated index has just rebuilt it: once is enough.
      const result = index.rebuiltOnOpen ?? (await index.rebuild());
      const seconds = (performance.now() - started) / 1000;
      if (args.json) return printJson({ ...result, seconds });
      printLine(`${index.path}: ${result.indexed} run(s) indexed in ${seconds.toFixed(1)} s${result.skipped.length > 0 ? `; left out: ${result.skipped.map((s) => `${s.runId} (${s.reason})`).join('; ')}` : ''}`);
    } finally {
      index.close();
    }
  },
};
