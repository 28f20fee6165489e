// `benchfleet report DIR...`: the study's table for result folders. Markdown on a pipe, an
// aligned text table on a terminal; --json, --csv, --bmf or --markdown/--text choose
// explicitly; --html FILE writes a self-contained page with the tables and charts of every arm.
// `report RUN... --coordinator URL`: the same table of runs the coordinator builds from its data
// folder, printed by the same code.
import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import type { ReportFormat } from '../../analysis/report/report.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { closestName } from '../closest-name.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { printLine } from '../output.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { EXIT_GATE } from '../exit-codes.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';

/** `--arm all`: every arm of the results (analysis/report/report-arms.ts's ALL_ARMS, not loaded for --help). */
const ALL_ARMS = 'all';

function didYouMean(arm: string): string {
  const close = closestName(arm, [...ARM_NAMES, ALL_ARMS]);
  return close ? ` (did you mean ${close}?)` : '';
}

interface Args extends ConnectionArgs { dirs: string[]; arm: string | undefined; markdown: boolean; text: boolean; json: boolean; csv: boolean; bmf: boolean; html: string | undefined; intervals: boolean; 'fail-on': string[] }

/** The one output format the flags ask for; with none, markdown on a pipe and text on a terminal. */
export function chooseFormat(flags: { markdown: boolean; text: boolean; json: boolean; csv: boolean; bmf?: boolean }, isTty: boolean): ReportFormat {
  const chosen = (['markdown', 'text', 'json', 'csv', 'bmf'] as const).filter((f) => flags[f] === true);
  if (chosen.length > 1) throw new BenchfleetError('USAGE', `choose one output format; got ${chosen.map((f) => `--${f}`).join(' and ')}`);
  return chosen[0] ?? (isTty ? 'text' : 'markdown');
}

export const reportCommand: CommandModule<object, Args> = {
  command: 'report <dirs..>',
  describe: "Print the study's table for result folders: speedup / CPU ratio per kernel, machine and policy",
  builder: (y) =>
    connectionOptions(y)
      .positional('dirs', { type: 'string', array: true, demandOption: true, describe: 'Result folders: DIR/<policy>.jsonl or a run folder DIR/<machine>/<policy>.jsonl; with --coordinator, run ids' })
      .option('arm', { type: 'string', describe: 'Arm to show (default taskpool-8-batched, else the widest batched taskpool arm present, else the widest other pool arm); "all": every arm of the results, in every format (the arm is named in each BMF benchmark and CSV row)' })
      .option('markdown', { type: 'boolean', default: false, describe: 'Markdown table (the default when stdout is not a terminal)' })
      .option('text', { type: 'boolean', default: false, describe: 'Aligned text table (the default on a terminal)' })
      .option('json', { type: 'boolean', default: false, describe: 'The report object as JSON' })
      .option('csv', { type: 'boolean', default: false, describe: 'One CSV line per cell, interval ends as numbers; the header is the first line' })
      .option('bmf', { type: 'boolean', default: false, describe: 'Bencher Metric Format JSON: speedup and cpu-ratio per machine/policy/kernel/arm' })
      .option('html', { type: 'string', describe: 'Write a self-contained HTML page (tables and charts of every arm, no network) to this file' })
      .option('intervals', { type: 'boolean', default: false, describe: 'Show each figure\'s within-run interval in the table' })
      .example('$0 report results/ryzen results/m2pro', 'one machine per folder')
      .option('fail-on', { type: 'string', array: true, default: [], choices: ['failures'], describe: `Exit ${EXIT_GATE} when any sample of the results (any arm) failed a check, after printing the report` })
      .example('$0 report /srv/benchfleet/runs/20261130-031502-k3v9x2 --arm taskpool-4-batched --csv', 'a coordinator run folder as CSV')
      .example('$0 report /srv/benchfleet/runs/20261130-031502-k3v9x2 --html run.html', 'one HTML file to attach to a paper or a pull request')
      .example('$0 report results/local --fail-on failures', `a CI gate: exit ${EXIT_GATE} on any failed check`)
      .example('$0 report /srv/benchfleet/runs/20261130-031502-k3v9x2 --arm all --bmf > report.bmf.json', 'every arm for Bencher: bencher run --adapter json --file report.bmf.json')
      .example('$0 report 20261130-031502-k3v9x2 --coordinator http://10.0.0.5:7420 --token-file ~/.benchfleet-token --fail-on failures', 'a run\'s table built by the coordinator, from anywhere it is reachable (every format but --html)')
      .epilogue(`Folders are read here. Run ids go to the coordinator: --coordinator URL (or $BENCHFLEET_COORDINATOR when some argument is not a folder here) with the control token (--token-file or $BENCHFLEET_TOKEN); it builds the tables from DATA/runs/<id>/ and they print as \`report DATA/runs/<id>\` prints them. Exit codes: 0 done, 1 error, 2 bad usage, ${EXIT_GATE} a --fail-on gate tripped.`),
  handler: async (args) => {
    const { buildReportFromResults, renderReports } = await import('../../analysis/report/report.ts');
    const { reportsForEveryArm, reportsOfArm } = await import('../../analysis/report/report-arms.ts');
    const { runsSource, remoteReports } = await import('../analysis-source.ts');
    const { loadResults } = await import('../../analysis/raw/result-folders.ts');
    const { renderHtmlReport, reportMachines } = await import('../../web/report-html.ts');
    // A bad value is a usage error, said before any folder is read.
    if (args.arm !== undefined && args.arm !== ALL_ARMS && !ARM_NAMES.includes(args.arm)) {
      throw new BenchfleetError('USAGE', `--arm must be an arm or "${ALL_ARMS}", got "${args.arm}"${didYouMean(args.arm)}; \`benchfleet kernels\` and docs/plan.md list the arms`);
    }
    let report;
    if (runsSource({ ...args, data: undefined }, args.dirs).from === 'coordinator') {
      if (args.html !== undefined) throw new BenchfleetError('USAGE', '--html needs the runs\' files here: copy a run with `benchfleet results RUN --out DIR`, then `benchfleet report DIR --html FILE`');
      const format = chooseFormat(args, process.stdout.isTTY === true);
      const reports = await remoteReports(args, { runs: args.dirs, ...(args.arm === undefined ? {} : { arm: args.arm }) });
      report = reports[0] as Report;
      process.stdout.write(renderReports(reports, format, { intervals: args.intervals, ...(process.stdout.isTTY === true ? { columns: process.stdout.columns || 80 } : {}) }));
    } else if (args.html !== undefined) {
      const results = await loadResults(args.dirs);
      if (args.html === '') throw new BenchfleetError('USAGE', '--html needs a file name');
      // Every arm, for the page's arm selector; --arm chooses the one shown first.
      let reports = reportsForEveryArm(results);
      if ((args.arm !== undefined && args.arm !== ALL_ARMS) || reports.length === 0) {
        const first = buildReportFromResults(results, args.arm);
        reports = [first, ...reports.filter((r) => r.arm !== first.arm)];
      }
      report = reports[0] as Report;
      const html = await renderHtmlReport(await reportTitle(args.dirs), reports, new Date(), reportMachines(results));
      await writeFileAtomic(resolve(args.html), html);
      printLine(`benchfleet: wrote ${args.html} (${Math.round(Buffer.byteLength(html) / 1024)} KiB, self-contained)`);
    } else {
      const format = chooseFormat(args, process.stdout.isTTY === true);
      const reports = reportsOfArm(await loadResults(args.dirs), args.arm);
      report = reports[0] as Report;
      process.stdout.write(renderReports(reports, format, { intervals: args.intervals, ...(process.stdout.isTTY === true ? { columns: process.stdout.columns || 80 } : {}) }));
    }
    // The gate counts every summary's failed samples, whichever arm is shown.
    if (args['fail-on'].includes('failures') && report.failedSamples > 0) {
      process.stderr.write(`report: --fail-on failures: ${report.failedSamples} sample${report.failedSamples === 1 ? '' : 's'} failed a check\n`);
      process.exitCode = EXIT_GATE;
    }
  },
};

/** The plan's name when one run folder with a plan.json is given, else the folders' names. */
async function reportTitle(dirs: readonly string[]): Promise<string> {
  if (dirs.length === 1) {
    try {
      const plan = JSON.parse(await readFile(join(dirs[0] as string, 'plan.json'), 'utf8')) as { name?: unknown };
      if (typeof plan.name === 'string' && plan.name.trim() !== '') return `${plan.name} (${basename(resolve(dirs[0] as string))})`;
    } catch {
      // No plan beside the results: named after the folder.
    }
  }
  return dirs.map((d) => basename(resolve(d))).join(', ');
}
