// `benchfleet analyze RAW.jsonl SUMMARY.json`: the summary of one raw file. Bad lines are
// warned about on stderr by line number and recorded in the summary's `problems`; the summary
// of the rest is still written and the exit is 0. A file with no usable sample exits 1.
import type { CommandModule } from 'yargs';
import { DEFAULT_BOOTSTRAP_SEED } from '../../analysis/summary/summary-types.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { DEFAULT_RESAMPLES } from '../../analysis/statistics/interval.ts';
import { printLine } from '../output.ts';
import { checkResamples, checkSeed } from '../analysis-options.ts';

interface Args { raw: string; summary: string; seed: number; resamples: number; quiet: boolean }

/** How many problems to print before pointing at the summary for the rest. */
const SHOWN_PROBLEMS = 20;

export const analyzeCommand: CommandModule<object, Args> = {
  command: 'analyze <raw> <summary>',
  describe: 'Write the summary of one raw file: paired speedups and CPU ratios with bootstrap intervals',
  builder: (y) =>
    y
      .positional('raw', { type: 'string', demandOption: true, describe: 'Raw records (<policy>.jsonl)' })
      .positional('summary', { type: 'string', demandOption: true, describe: 'Summary to write (<policy>.summary.json)' })
      .option('seed', { type: 'number', default: DEFAULT_BOOTSTRAP_SEED, describe: 'Bootstrap seed, recorded in the summary (used only where the exact bootstrap is not: an even count of more than 1,000 rounds)' })
      .option('resamples', { type: 'number', default: DEFAULT_RESAMPLES, describe: 'Bootstrap resamples, likewise only for more than 1,000 rounds (the bootstrap of a median is otherwise computed exactly)' })
      .option('quiet', { type: 'boolean', default: false, describe: 'Print nothing on success (warnings still go to stderr)' })
      .example('$0 analyze results/ryzen/pages.jsonl results/ryzen/pages.summary.json', 'summarize one raw file'),
  handler: async (args) => {
    const { summarizeParsed } = await import('../../analysis/summary/summarize.ts');
    const { readRawFile } = await import('../../analysis/raw/raw-reader.ts');
    const { writeSummary } = await import('../../analysis/summary/summary-io.ts');
    checkSeed(args.seed);
    checkResamples(args.resamples);
    const { parsed, source } = await readRawFile(args.raw);
    const summary = summarizeParsed(parsed, { seed: args.seed, resamples: args.resamples }, source);
    for (const problem of summary.problems.slice(0, SHOWN_PROBLEMS)) process.stderr.write(`warning: ${args.raw}: ${problem.message}\n`);
    if (summary.problems.length > SHOWN_PROBLEMS) {
      process.stderr.write(`warning: ${args.raw}: ${summary.problems.length - SHOWN_PROBLEMS} more problems; the summary's "problems" lists them all\n`);
    }
    if (summary.rows.length === 0) {
      throw new BenchfleetError('RECORD_INVALID', `${args.raw} has no usable samples (${summary.counts.samples} valid samples, none paired with native); no summary written`);
    }
    await writeSummary(args.summary, summary);
    if (!args.quiet) {
      const problems = summary.problems.length === 0 ? '' : `, ${summary.problems.length} problem${summary.problems.length === 1 ? '' : 's'} recorded`;
      const failed = `${summary.counts.failed} sample${summary.counts.failed === 1 ? '' : 's'} failed checks`;
      printLine(`wrote ${args.summary}: ${summary.rows.length} rows from ${summary.counts.used} samples (${failed}${problems}; seed ${args.seed}, ${args.resamples} resamples)`);
    }
  },
};
