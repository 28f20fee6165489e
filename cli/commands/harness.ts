// `benchfleet harness --plan FILE --out DIR`: one local run of a plan, no coordinator. Writes
// DIR/<policy>.jsonl as samples finish, holds the machine's timing lock for the whole run, and
// shows a progress bar on a terminal. With --cpus, --nice or --heap-mb it re-executes itself
// under taskset / nice / --max-old-space-size, as the study's matched.sh did, and the records
// say what the child actually got. Started with an IPC channel (the agent does), it sends the
// harness events of shared/harness-contract.ts. The process's main is agent/harness/harness-main.ts:
// this command defines the flags and prints the summary.
import type { CommandModule } from 'yargs';
import { DEFAULT_LOCK_FILE, DEFAULT_LOCK_WAIT_SECONDS, LOCK_FILE_ENV, LOCK_HELD_BY_ENV } from '../../agent/harness/timing-lock.ts';
import type { HarnessLaunch, IsolationOptions } from '../../shared/harness-contract.ts';
import { POLICY_ENV } from '../../shared/plan-policy-env.ts';
import { checkLoadWait, isolationOptions, type IsolationArgs } from '../isolation-options.ts';
import { printJson, printLine } from '../output.ts';
import { readInputFile } from '../read-input.ts';

interface Args extends IsolationArgs {
  plan: string;
  out: string;
  machine: string | undefined;
  'ipc-pause-ms': number;
  'lock-file': string | undefined;
  'lock-wait': number;
  resume: boolean;
  json: boolean;
}

export const harnessCommand: CommandModule<object, Args> = {
  command: 'harness',
  describe: 'Run a plan on this machine, no coordinator: DIR/<policy>.jsonl per policy',
  builder: (y) =>
    isolationOptions(y)
      .option('plan', { type: 'string', demandOption: true, describe: 'Plan file (JSON, docs/plan.md)' })
      .option('out', { type: 'string', demandOption: true, describe: 'Output folder; must be new or empty' })
      .option('machine', { type: 'string', describe: 'Machine name in the records (default: host name)' })
      .option('lock-file', { type: 'string', describe: `The machine's timing lock (default: $${LOCK_FILE_ENV}, else ${DEFAULT_LOCK_FILE}); runs that share it never overlap` })
      .option('lock-wait', { type: 'number', default: DEFAULT_LOCK_WAIT_SECONDS, describe: 'Longest wait for the timing lock, seconds; then the harness gives up with an error naming the holder' })
      .option('ipc-pause-ms', { type: 'number', default: 0, describe: 'With an IPC parent (the agent): after each sample, wait up to this long for it to stream and say resume' })
      .option('resume', { type: 'boolean', default: false, describe: 'Continue the run whose records --out already holds: redo its interrupted round whole, append a new segment (docs/records.md)' })
      .option('json', { type: 'boolean', default: false, describe: 'Print a JSON summary instead of text (and no progress bar)' })
      .example('$0 harness --plan plans/study.json --out results/ryzen', 'the study plan on this machine')
      .example('$0 harness --plan study.json --out r --cpus 4-11 --nice 19 --heap-mb 128', 'isolated as in the reset-policies study: pinned, nice 19, 128 MiB heap')
      .example('$0 harness --plan study.json --out results/ryzen --resume', 'continue a run that was interrupted')
      .epilogue(`${POLICY_ENV}, the study scripts' variable naming the reset policies (e.g. whole,pages), is written into a plan that names none before it is hashed. A child started by a lock holder runs under its lock when ${LOCK_HELD_BY_ENV} is the holder's pid.`),
  handler: async (args) => {
    const { reexecuteHarness, runHarness } = await import('../../agent/harness/harness-main.ts');
    const isolation: IsolationOptions = {
      ...(args.cpus !== undefined ? { cpus: args.cpus } : {}),
      ...(args.nice !== undefined ? { nice: args.nice } : {}),
      ...(args['heap-mb'] !== undefined ? { heapMb: args['heap-mb'] } : {}),
    };
    checkLoadWait(args);
    const launch: HarnessLaunch = {
      plan: args.plan,
      out: args.out,
      ...(args.machine ? { machine: args.machine } : {}),
      ipcPauseMs: args['ipc-pause-ms'],
      ...(args['max-load'] !== undefined ? { maxLoad: args['max-load'], maxLoadWaitSeconds: args['max-load-wait'] } : {}),
      ...(args['lock-file'] !== undefined ? { lockFile: args['lock-file'] } : {}),
      lockWaitSeconds: args['lock-wait'],
      resume: args.resume,
      json: args.json,
    };
    if (Object.keys(isolation).length > 0) {
      process.exitCode = await reexecuteHarness(launch, isolation);
      return;
    }
    const summary = await runHarness({ ...launch, lockWaitSeconds: args['lock-wait'], readPlan: readInputFile });
    const timedShare = summary.wallNs > 0 ? summary.timedNs / summary.wallNs : 0;
    if (args.json) {
      const { files, samples, failedSamples, wallNs, timedNs, prepareNs, poolStartNs, threads } = summary;
      const resumed = summary.resumed ? { segment: summary.resumed.segment, startSample: summary.resumed.startSlot + 1, superseded: summary.resumed.superseded } : null;
      printJson({ outDir: args.out, files, samples, failedSamples, wallNs, timedNs, timedShare, prepareNs, poolStartNs, threads, resumed });
    } else {
      if (summary.resumed) printLine(`resumed as segment ${summary.resumed.segment} at sample ${summary.resumed.startSlot + 1}${summary.resumed.superseded ? `; ${summary.resumed.superseded} samples of the interrupted round were redone (kept in the files, superseded in the analysis)` : ''}`);
      printLine(`${summary.samples} samples in ${summary.files.length} files under ${args.out}${summary.failedSamples ? `; ${summary.failedSamples} FAILED their checks (see "failures")` : ', all checks passed'}`);
      const pct = (ns: number): string => `${((ns / summary.wallNs) * 100).toFixed(1)}%`;
      printLine(`wall ${(summary.wallNs / 1e9).toFixed(1)} s: ${pct(summary.timedNs)} inside timed repeats, ${pct(summary.prepareNs)} preparing kernels, ${pct(summary.poolStartNs)} starting ${summary.threads} pool threads`);
    }
  },
};
