// `benchfleet compare RUN|DIR ...`: run-to-run variation for what it is. Groups the runs by
// machine, policy, kernel and arm and gives each run's within-run interval, a t interval
// across runs, a calibrated rank-based verdict (stable, run effect within margin, unstable,
// unstable beyond margin, inconclusive, failed), Kalibera &
// Jones' variance components and recommended repetitions. `--fail-on` makes it a CI gate.
import type { CommandModule } from 'yargs';
import { DEFAULT_ALPHA, DEFAULT_MARGIN, DEFAULT_RUN_COST_SECONDS, DEFAULT_TARGET, type CompareGroup, type Comparison } from '../../analysis/compare/compare-types.ts';
import { RUN_EFFECT_VERDICTS } from '../../analysis/statistics/run-effect.ts';
import type { CompareFormat } from '../../analysis/compare/compare-render.ts';
import { DEFAULT_BOOTSTRAP_SEED } from '../../analysis/summary/summary-types.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import type { CompareRequestOptions } from '../../shared/protocol/analysis-requests.ts';
import { DEFAULT_RESAMPLES } from '../../analysis/statistics/interval.ts';
import { EXIT_GATE } from '../exit-codes.ts';
import { checkResamples, checkSeed } from '../analysis-options.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { SOURCE_HELP } from '../analysis-source.ts';

interface Args extends ConnectionArgs {
  runs: string[];
  data: string | undefined;
  machine: string | undefined;
  policy: string | undefined;
  kernel: string | undefined;
  arm: string | undefined;
  json: boolean;
  markdown: boolean;
  text: boolean;
  target: number;
  'run-cost': number;
  seed: number;
  resamples: number;
  margin: number;
  alpha: number;
  'include-failed': boolean;
  'fail-on': string[];
}

const GATE_EXIT_CODE = EXIT_GATE;
export const COMPARE_GATES = ['unstable', 'beyond-margin', 'run-effect', 'inconclusive', 'failed', 'failures'] as const;
type Gate = (typeof COMPARE_GATES)[number];

/** Which groups trip each gate: what `--fail-on` means, in one place. */
const GATE_TRIPS: Record<Gate, { words: string; trips: (g: CompareGroup) => boolean }> = {
  unstable: { words: 'unstable (a run effect not shown within the margin)', trips: (g) => g.verdict === 'unstable' || g.verdict === 'unstable-beyond-margin' },
  'beyond-margin': { words: 'unstable beyond the margin', trips: (g) => g.verdict === 'unstable-beyond-margin' },
  'run-effect': { words: 'with a run effect (within the margin or not)', trips: (g) => (RUN_EFFECT_VERDICTS as readonly string[]).includes(g.verdict) },
  inconclusive: { words: 'inconclusive (could not be judged)', trips: (g) => g.verdict === 'inconclusive' },
  failed: { words: 'failed (no verdict: samples failed their checks)', trips: (g) => g.verdict === 'failed' },
  failures: { words: 'with failed samples', trips: (g) => g.failures > 0 },
};

/** The gates of `--fail-on` that these groups trip, each with the groups that trip it. */
export function trippedGates(comparison: Comparison, gates: readonly string[]): { gate: Gate; groups: CompareGroup[] }[] {
  return COMPARE_GATES.filter((gate) => gates.includes(gate))
    .map((gate) => ({ gate, groups: comparison.groups.filter(GATE_TRIPS[gate].trips) }))
    .filter((t) => t.groups.length > 0);
}

/** The gate's lines for stderr: a summary line, then every group that tripped it with why. */
export function gateReport(tripped: readonly { gate: Gate; groups: readonly CompareGroup[] }[]): string {
  const lines = [`compare: --fail-on ${tripped.map((t) => t.gate).join(', ')}: ${tripped.map((t) => `${t.groups.length} group(s) ${GATE_TRIPS[t.gate].words}`).join(', ')}`];
  for (const t of tripped) for (const g of t.groups) lines.push(`  ${t.gate}: ${g.machine} / ${g.policy} / ${g.kernel} / ${g.arm}: ${g.reason}`);
  return `${lines.join('\n')}\n`;
}

export const compareCommand: CommandModule<object, Args> = {
  command: 'compare <runs..>',
  describe: 'Compare runs: each run\'s speedup and interval, the spread between runs, variance components, an interval that covers run-to-run variation',
  builder: (y) =>
    connectionOptions(y)
      .positional('runs', { type: 'string', array: true, demandOption: true, describe: 'Run ids (with --data or --coordinator) or result folders' })
      .option('data', { type: 'string', describe: "The coordinator's data folder: run ids are DATA/runs/<id>/; or --coordinator" })
      .option('machine', { type: 'string', describe: 'Only this machine' })
      .option('policy', { type: 'string', describe: 'Only this policy' })
      .option('kernel', { type: 'string', describe: 'Only this kernel' })
      .option('arm', { type: 'string', describe: 'Arm to compare, or "all" (default taskpool-8-batched, else the widest batched taskpool arm)' })
      .option('json', { type: 'boolean', default: false, describe: 'Print { groups, notes, ... } as JSON' })
      .option('markdown', { type: 'boolean', default: false, describe: 'Markdown (the default when stdout is not a terminal)' })
      .option('text', { type: 'boolean', default: false, describe: 'Text (the default on a terminal)' })
      .option('target', { type: 'number', default: DEFAULT_TARGET * 100, describe: 'Target half-width of the 95% interval in percent, for the recommended runs and rounds' })
      .option('run-cost', { type: 'number', default: DEFAULT_RUN_COST_SECONDS, describe: 'Seconds one more run costs beyond its rounds (start-up, warm-up), for the recommendation' })
      .option('seed', { type: 'number', default: DEFAULT_BOOTSTRAP_SEED, describe: 'Bootstrap seed' })
      .option('resamples', { type: 'number', default: DEFAULT_RESAMPLES, describe: 'Resamples of the diagnostic hierarchical bootstrap' })
      .option('margin', { type: 'number', default: DEFAULT_MARGIN * 100, describe: 'Practical-equivalence margin in percent: "stable" only when every two runs are shown to differ by less, "unstable beyond margin" only when two are shown to differ by more' })
      .option('alpha', { type: 'number', default: DEFAULT_ALPHA, describe: 'Level of the verdict\'s tests: the false-alarm rate of "unstable" when runs do not differ' })
      .option('include-failed', { type: 'boolean', default: false, describe: 'Give a verdict for groups whose samples failed checks (default: verdict "failed")' })
      .option('fail-on', {
        type: 'string',
        array: true,
        default: [],
        choices: COMPARE_GATES,
        describe:
          `Exit ${GATE_EXIT_CODE} after printing everything when some group is: unstable (a run effect not shown within --margin), beyond-margin (two runs shown more than --margin apart), ` +
          `run-effect (any run effect, even one within the margin), inconclusive (could not be judged: one run, one round, too few rounds), failed (no verdict: checks failed), failures (any failed sample); stderr lists the groups`,
      })
      .example('$0 compare 20261130-031502-k3v9x2 20261201-091210-p0c4md --data /srv/benchfleet --machine ryzen', 'two runs of one machine')
      .example('$0 compare results/monday results/friday --kernel aes-cbc-decrypt --json', 'two result folders, as JSON')
      .example('$0 compare 20261130-031502-k3v9x2 20261130-043318-7qz1ha 20261130-055140-m2d8xe --data /srv/benchfleet --fail-on beyond-margin inconclusive failures', `a CI gate: exit ${GATE_EXIT_CODE} when two runs differ by more than the margin, a group could not be judged, or a check failed`)
      .example('$0 compare 20261130-031502-k3v9x2 20261201-091210-p0c4md --coordinator http://10.0.0.5:7420 --token-file ~/.benchfleet-token --fail-on beyond-margin', 'two runs compared by the coordinator, from a CI runner that has no copy of them')
      .epilogue(`Result folders are read here. Run ids: ${SOURCE_HELP} With $BENCHFLEET_COORDINATOR set and no --data, the coordinator is asked unless every argument is a folder here. Exit codes: 0 done, 1 error, 2 bad usage, ${GATE_EXIT_CODE} a --fail-on gate tripped. docs/statistics.md defines every figure.`),
  handler: async (args) => {
    checkSeed(args.seed);
    checkResamples(args.resamples);
    if (!(args.target > 0 && args.target < 100)) throw new BenchfleetError('USAGE', `--target is a percentage above 0 and below 100, got ${args.target}`);
    if (!(args.margin > 0 && args.margin < 100)) throw new BenchfleetError('USAGE', `--margin is a percentage above 0 and below 100, got ${args.margin}`);
    if (!(args.alpha > 0 && args.alpha < 0.5)) throw new BenchfleetError('USAGE', `--alpha is a level above 0 and below 0.5 (e.g. 0.05), got ${args.alpha}`);
    if (!(args['run-cost'] >= 0)) throw new BenchfleetError('USAGE', `--run-cost is a number of seconds, at least 0, got ${args['run-cost']}`);
    const chosen = (['json', 'markdown', 'text'] as const).filter((f) => args[f]);
    if (chosen.length > 1) throw new BenchfleetError('USAGE', `choose one output format; got ${chosen.map((f) => `--${f}`).join(' and ')}`);
    const format: CompareFormat = chosen[0] ?? (process.stdout.isTTY === true ? 'text' : 'markdown');
    // The comparison is loaded here, not at the top: every command's definition is read for any
    // command's --help, and a command should load only what it runs.
    const [{ renderComparison }, { runsSource, remoteComparison, requireFolders }] = await Promise.all([import('../../analysis/compare/compare-render.ts'), import('../analysis-source.ts')]);
    const options: CompareRequestOptions = {
      seed: args.seed,
      resamples: args.resamples,
      target: args.target / 100,
      runCostSeconds: args['run-cost'],
      margin: args.margin / 100,
      alpha: args.alpha,
      includeFailed: args['include-failed'],
      ...(args.machine === undefined ? {} : { machine: args.machine }),
      ...(args.policy === undefined ? {} : { policy: args.policy }),
      ...(args.kernel === undefined ? {} : { kernel: args.kernel }),
      ...(args.arm === undefined ? {} : { arm: args.arm }),
    };
    const source = runsSource(args, args.runs);
    if (source.from === 'folders') requireFolders(args.runs, true);
    const comparison = source.from === 'coordinator' ? await remoteComparison(args, { runs: args.runs, options }) : await compareHere(args.runs, args.data, options);
    // On a terminal, text fits its width; in a file or a pipe, lines are as long as they come.
    process.stdout.write(renderComparison(comparison, format, process.stdout.isTTY === true ? process.stdout.columns || 80 : undefined));
    const tripped = trippedGates(comparison, args['fail-on']);
    if (tripped.length > 0) {
      process.stderr.write(gateReport(tripped));
      process.exitCode = GATE_EXIT_CODE;
    }
  },
};

/** The comparison of runs on this machine: result folders, or run ids of a data folder. */
async function compareHere(runs: readonly string[], dataDir: string | undefined, options: CompareRequestOptions): Promise<Comparison> {
  const { ComparePool, loadRunsOnThreads, buildComparisonOnThreads } = await import('../../analysis/compare/compare-threads.ts');
  const skipped: string[] = [];
  // One pool of worker threads reads the raw files and then computes the bootstraps.
  const pool = new ComparePool();
  let comparison;
  try {
    comparison = await buildComparisonOnThreads(await loadRunsOnThreads(runs, dataDir, skipped, options, pool), options, undefined, pool);
  } finally {
    await pool.close();
  }
  comparison.notes.push(...skipped);
  return comparison;
}
