// `benchfleet history --data DIR --plan P`: every run of one plan on one timeline, from the
// coordinator's run index, with the changes the detection rule flags. Reads the index file
// itself (the coordinator's machine, or a copy of its data folder), or asks the coordinator for
// the same view (--coordinator URL); --fail-on regression makes it a CI gate.
import type { CommandModule } from 'yargs';
import { DEFAULT_DETECTION, type Direction, type HistoryView } from '../../analysis/history/history-types.ts';
import type { HistoryFormat, Regression } from '../../analysis/history/history-render.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { FAIL_ON, type FailOn } from '../../analysis/history/history-gate.ts';
import { EXIT_GATE, EXIT_PENDING } from '../exit-codes.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { SOURCE_HELP } from '../analysis-source.ts';
import type { HistoryRequest } from '../../shared/protocol/analysis-requests.ts';

interface Args extends ConnectionArgs {
  data: string | undefined;
  plan: string;
  machine: string | undefined;
  policy: string | undefined;
  kernel: string | undefined;
  arm: string | undefined;
  since: string | undefined;
  last: number | undefined;
  direction: Direction;
  alpha: number;
  window: number;
  json: boolean;
  csv: boolean;
  text: boolean;
  'fail-on': FailOn[];
}

export const historyCommand: CommandModule<object, Args> = {
  command: 'history',
  describe: "Every run of one plan on one timeline from the coordinator's run index: each cell's figure, interval, environment changes, and flagged regressions",
  builder: (y) =>
    connectionOptions(y)
      .option('data', { type: 'string', describe: "The coordinator's data folder (its run index is DATA/index.sqlite, built from DATA/runs if missing); or --coordinator" })
      .option('plan', { type: 'string', demandOption: true, describe: 'A plan hash (or its first 6+ hex digits), or a plan name: every hash of that name, marked where it changed' })
      .option('machine', { type: 'string', describe: 'Only this machine (each machine is its own family of tests)' })
      .option('policy', { type: 'string', describe: 'Show and gate only this policy (flags are computed over every cell of the plan on each machine all the same)' })
      .option('kernel', { type: 'string', describe: 'Show and gate only this kernel (flags do not depend on it)' })
      .option('arm', { type: 'string', describe: 'Show and gate only this arm (flags do not depend on it; native is never shown: its figure is 1)' })
      .option('since', { type: 'string', describe: 'Show runs created at or after this ISO date or time (earlier runs still make the first trailing windows)' })
      .option('last', { type: 'number', describe: 'Show only the last N runs (with --fail-on: gate on what they flag)' })
      .option('direction', { type: 'string', choices: ['lower-is-worse', 'higher-is-worse'] as const, default: DEFAULT_DETECTION.direction, describe: 'Which way is a regression: lower-is-worse for speedup' })
      .option('alpha', { type: 'number', default: DEFAULT_DETECTION.alpha, describe: "False discovery rate across every cell of the plan on a machine at each run (Benjamini-Hochberg); with no change anywhere, about the chance that a run flags any of the machine's cells" })
      .option('window', { type: 'number', default: DEFAULT_DETECTION.window, describe: 'Most earlier runs the old level and its run-to-run variance come from' })
      .option('json', { type: 'boolean', default: false, describe: 'The whole history as JSON: runs, environments, series, flagged changes, regressions' })
      .option('csv', { type: 'boolean', default: false, describe: 'One CSV line per cell and run; the header is the first line' })
      .option('text', { type: 'boolean', default: false, describe: 'Aligned text (the default), fitted to the terminal\'s width on a terminal' })
      .option('fail-on', {
        type: 'string',
        array: true,
        default: [] as FailOn[],
        choices: FAIL_ON,
        describe: `regression: exit ${EXIT_GATE} when a shown run flags a regression, listing the regressed cells on stderr. confirmed-regression: exit ${EXIT_GATE} only for flags the runs after them confirmed (a refuted one passes), and ${EXIT_PENDING} while one is still suspected (the coordinator's --confirm-runs settles it within the hour)`,
      })
      .example('$0 history --data /srv/benchfleet --plan "reset-policies study" --machine ryzen --policy pages --arm taskpool-8-batched', "one machine's series for one arm, every kernel")
      .example('$0 history --data /srv/benchfleet --plan 0c7d557b --last 1 --fail-on regression', `a nightly CI gate: exit ${EXIT_GATE} when the newest run regressed in any cell`)
      .example('$0 history --data /srv/benchfleet --plan nightly --kernel sha256 --csv > sha256.csv', 'for a spreadsheet')
      .example('$0 history --data /srv/benchfleet --plan nightly --last 1 --fail-on confirmed-regression', `exit ${EXIT_GATE} once confirmation runs confirmed a regression of the newest scheduled run, ${EXIT_PENDING} while they have not come yet, 0 when they refuted it`)
      .example('BENCHFLEET_TOKEN=... $0 history --coordinator http://10.0.0.5:7420 --plan nightly --last 1 --fail-on regression', `the nightly gate from a CI runner that only reaches the coordinator`)
      .epilogue(
        `A run is flagged when its figure (or the mean of the last 2 or 3 runs) moves in the worse direction beyond what the cell's own run-to-run variance over the trailing window explains, with the false discovery rate held at --alpha across every cell of the plan on that machine at each run: --policy, --kernel and --arm choose what is shown and gated, never what is tested, so a narrow view and a broad nightly gate give the same flags. A flagged change restarts the window only once the two runs after it confirm it; if they come back, the flagged run was a one-run excursion and is left out of later windows. The detection rule and its measured false-flag rate and power are in docs/statistics.md; the index in docs/records.md. ${SOURCE_HELP} Each flag is suspected until the two runs after its first run settle it, then confirmed or refuted; a coordinator started with --confirm-runs N queues those runs on the flagging machine at once (confirmation runs; --last counts the scheduled runs, each with the confirmation runs after it). Exit codes: 0 done, 1 error, 2 bad usage, ${EXIT_GATE} --fail-on tripped, ${EXIT_PENDING} --fail-on confirmed-regression waits for confirmation.`,
      ),
  handler: async (args) => {
    const { renderHistory } = await import('../../analysis/history/history-render.ts');
    const { historyGate } = await import('../../analysis/history/history-gate.ts');
    const { analysisSource, remoteHistory } = await import('../analysis-source.ts');
    const chosen = (['json', 'csv', 'text'] as const).filter((f) => args[f]);
    if (chosen.length > 1) throw new BenchfleetError('USAGE', `choose one output format; got ${chosen.map((f) => `--${f}`).join(' and ')}`);
    if (!(args.alpha > 0 && args.alpha < 0.5)) throw new BenchfleetError('USAGE', `--alpha is a level above 0 and below 0.5 (e.g. 0.05), got ${args.alpha}`);
    if (!(Number.isInteger(args.window) && args.window >= DEFAULT_DETECTION.minWindow)) throw new BenchfleetError('USAGE', `--window is a whole number of runs, at least ${DEFAULT_DETECTION.minWindow}, got ${args.window}`);
    if (args.last !== undefined && !(Number.isInteger(args.last) && args.last >= 1)) throw new BenchfleetError('USAGE', `--last is a whole number of runs, at least 1, got ${args.last}`);
    if (args.since !== undefined && Number.isNaN(Date.parse(args.since))) throw new BenchfleetError('USAGE', `--since is an ISO date or time such as 2026-11-30 or 2026-11-30T12:00Z, got "${args.since}"`);
    const format: HistoryFormat = args.json ? 'json' : args.csv ? 'csv' : 'text';
    const source = analysisSource(args);
    const since = args.since === undefined ? undefined : new Date(args.since).toISOString();
    const query: HistoryRequest = { plan: args.plan, machine: args.machine, policy: args.policy, kernel: args.kernel, arm: args.arm, since, last: args.last, direction: args.direction, alpha: args.alpha, window: args.window };
    const view = source.from === 'coordinator' ? await remoteHistory(args, query) : await readLocalHistory(source.dir, query);
    process.stdout.write(renderHistory(view, format, process.stdout.isTTY === true ? process.stdout.columns || 80 : undefined));
    const cells = (found: readonly Regression[]): string => found.map((r) => `  ${r.machine} / ${r.policy} / ${r.kernel} / ${r.arm}: ${((r.change.ratio - 1) * 100).toFixed(1)}% from run ${r.at}`).join('\n');
    let pending = false;
    for (const failOn of new Set(args['fail-on'])) {
      const verdict = historyGate(view, failOn);
      const kind = failOn === 'regression' ? '' : ', confirmed';
      if (verdict.failing.length > 0) {
        process.stderr.write(`history: --fail-on ${failOn}: ${verdict.failing.length} regressed cell(s)${kind}:\n${cells(verdict.failing)}\n`);
        process.exitCode = EXIT_GATE;
      }
      if (verdict.pending.length > 0) {
        process.stderr.write(`history: --fail-on ${failOn}: ${verdict.pending.length} regression(s) suspected, awaiting confirmation:\n${cells(verdict.pending)}\n`);
        pending = true;
      }
    }
    if (pending && process.exitCode !== EXIT_GATE) process.exitCode = EXIT_PENDING;
  },
};

/** The view from the run index of a data folder on this machine (the coordinator reads its own the same way). */
async function readLocalHistory(dataDir: string, query: HistoryRequest): Promise<HistoryView> {
  const { readHistory } = await import('../../store/run-index/read-history.ts');
  const { RunIndex } = await import('../../store/run-index/run-index.ts');
  const { direction, alpha, window, ...filter } = query;
  const index = await RunIndex.open(dataDir);
  try {
    return readHistory(index, filter, { ...DEFAULT_DETECTION, direction, alpha, window });
  } finally {
    index.close();
  }
}
