// `benchfleet report DIR...`: the study's table for result folders. Markdown on a pipe, an
// aligned text table on a terminal; --json, --csv or --markdown/--text choose explicitly.
import type { CommandModule } from 'yargs';
import { buildReport, renderReport, type ReportFormat } from '../../shared/analysis/report.ts';
import { BenchfleetError } from '../../shared/errors.ts';

interface Args { dirs: string[]; arm: string | undefined; markdown: boolean; text: boolean; json: boolean; csv: boolean; intervals: boolean }

/** The one output format the flags ask for; with none, markdown on a pipe and text on a terminal. */
export function chooseFormat(flags: { markdown: boolean; text: boolean; json: boolean; csv: boolean }, isTty: boolean): ReportFormat {
  const chosen = (['markdown', 'text', 'json', 'csv'] as const).filter((f) => flags[f]);
  if (chosen.length > 1) throw new BenchfleetError('USAGE', `choose one output format; got ${chosen.map((f) => `--${f}`).join(' and ')}`);
  return chosen[0] ?? (isTty ? 'text' : 'markdown');
}

export const reportCommand: CommandModule<object, Args> = {
  command: 'report <dirs..>',
  describe: "Print the study's table for result folders: speedup / CPU ratio per kernel, machine and policy",
  builder: (y) =>
    y
      .positional('dirs', { type: 'string', array: true, demandOption: true, describe: 'Result folders: DIR/<policy>.jsonl or a run folder DIR/<machine>/<policy>.jsonl' })
      .option('arm', { type: 'string', describe: 'Arm to show (default taskpool-8-batched, else the widest batched taskpool arm present)' })
      .option('markdown', { type: 'boolean', default: false, describe: 'Markdown table (the default when stdout is not a terminal)' })
      .option('text', { type: 'boolean', default: false, describe: 'Aligned text table (the default on a terminal)' })
      .option('json', { type: 'boolean', default: false, describe: 'The report object as JSON' })
      .option('csv', { type: 'boolean', default: false, describe: 'One CSV line per cell, interval ends as numbers' })
      .option('intervals', { type: 'boolean', default: false, describe: 'Show each figure\'s within-run interval in the table' })
      .example('$0 report results/ryzen results/m2pro', 'one machine per folder')
      .example('$0 report /srv/benchfleet/runs/20261130-031502-k3v9x2 --arm taskpool-4-batched --csv', 'a coordinator run folder as CSV'),
  handler: async (args) => {
    const format = chooseFormat(args, process.stdout.isTTY === true);
    const report = await buildReport(args.dirs, args.arm === undefined ? {} : { arm: args.arm });
    process.stdout.write(renderReport(report, format, { intervals: args.intervals }));
  },
};
