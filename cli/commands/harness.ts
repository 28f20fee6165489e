// `benchfleet harness --plan FILE --out DIR`: one local run of a plan, no coordinator. Writes
// DIR/<policy>.jsonl as samples finish, holds the machine's timing lock for the whole run, and
// shows a progress bar on a terminal. With --cpus, --nice or --heap-mb it re-executes itself
// under taskset / nice / --max-old-space-size, as the study's matched.sh did, and the records
// say what the child actually got. Started with an IPC channel (the agent does), it sends the
// harness events of shared/harness-contract.ts.
import { spawn } from 'node:child_process';
import type { CommandModule } from 'yargs';
import { createProgressBar } from '../../agent/harness/progress.ts';
import { prepareOutputDir } from '../../agent/harness/record-writer.ts';
import { runPlan } from '../../agent/harness/runner.ts';
import { acquireTimingLock, DEFAULT_LOCK_FILE, DEFAULT_LOCK_WAIT_SECONDS, describeLockWait, LOCK_FILE_ENV, LOCK_HELD_BY_ENV, timingLockFile } from '../../agent/harness/timing-lock.ts';
import { sha256Hex } from '../../kernels/corpus.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { harnessArgs, HARNESS_EXIT, checkIsolation, isolatedCommand, type IsolationOptions } from '../../shared/harness-contract.ts';
import { exitWithParent, quietWindow, sendEvent } from '../../agent/harness/parent-link.ts';
import type { LoadWait } from '../../shared/records.ts';
import { waitForLoad } from '../../agent/harness/load-wait.ts';
import { preventSleep } from '../../agent/harness/no-sleep.ts';
import { describeLoadWait } from '../../shared/load-wait-text.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { applyPolicyEnv, POLICY_ENV } from '../../shared/plan-policy-env.ts';
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

/** Run this same command in a child under taskset/nice/heap cap; forward its events and signals. */
async function reexecute(args: Args, isolation: IsolationOptions): Promise<void> {
  checkIsolation(isolation);
  const childArgs = harnessArgs({
    plan: args.plan,
    out: args.out,
    ...(args.machine ? { machine: args.machine } : {}),
    ipcPauseMs: args['ipc-pause-ms'],
    ...(args['max-load'] !== undefined ? { maxLoad: args['max-load'], maxLoadWaitSeconds: args['max-load-wait'] } : {}),
    ...(args['lock-file'] !== undefined ? { lockFile: args['lock-file'] } : {}),
    lockWaitSeconds: args['lock-wait'],
    resume: args.resume,
    json: args.json,
  });
  const [file, argv] = isolatedCommand(childArgs, isolation);
  const ipc = typeof process.send === 'function';
  const child = spawn(file, argv, { stdio: ['inherit', 'inherit', 'inherit', ...(ipc ? (['ipc'] as const) : [])] });
  // Events go up, resume messages come down. The downward listener holds this process's IPC
  // channel open, so it is removed when the child exits (or this process would never end).
  const forwardDown = (message: unknown): void => {
    if (child.connected) child.send(message as object);
  };
  if (ipc) {
    child.on('message', (message: unknown) => process.send?.(message));
    process.on('message', forwardDown);
  }
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const unwatch = exitWithParent(() => child.kill('SIGTERM'));
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', (error) => reject(new BenchfleetError('USAGE', `could not start ${file}: ${error.message}`)));
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === 'SIGINT' ? HARNESS_EXIT.interrupted : HARNESS_EXIT.terminated)));
  });
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  process.off('message', forwardDown);
  unwatch();
  process.exitCode = code;
}

async function runHere(args: Args): Promise<void> {
  // FOLIO_CORPUS_RESET goes into the plan text before it is hashed (records name that hash).
  const bytes = new TextEncoder().encode(applyPolicyEnv(new TextDecoder().decode(await readInputFile(args.plan))));
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `--plan ${args.plan} is not JSON: ${errorMessage(error)}`);
  }
  let plan;
  try {
    plan = parsePlan(json, kernelNames());
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `${args.plan}: ${errorMessage(error)}`);
  }
  if (!(args['lock-wait'] >= 0)) throw new BenchfleetError('USAGE', `--lock-wait must be a number of seconds >= 0, got ${args['lock-wait']}`);
  // A resumed run continues the folder's files; the runner checks they are this plan's.
  if (!args.resume) prepareOutputDir(args.out);
  // Watched from before the lock wait: an agent that dies while its harness waits ends that wait too.
  const unwatch = exitWithParent();
  const lock = await acquireTimingLock({
    what: `harness --plan ${args.plan}`,
    file: timingLockFile(process.env, args['lock-file']),
    limitSeconds: args['lock-wait'],
    onWait: (wait) => {
      process.stderr.write(`${describeLockWait(wait, true)}\n`);
      void sendEvent({ type: 'progress', done: 0, total: 0, waiting: describeLockWait(wait, true) });
    },
  });
  const awake = preventSleep();
  let loadWait: LoadWait | undefined;
  if (args['max-load'] !== undefined) {
    checkLoadWait(args);
    loadWait = await waitForLoad({
      maxLoad: args['max-load'],
      limitSeconds: args['max-load-wait'],
      onWait: (load) => {
        const why = `waiting for the 1-minute load average (${load.toFixed(2)}) to fall below ${args['max-load']} (at most ${args['max-load-wait']} s)`;
        process.stderr.write(`${why}\n`);
        void sendEvent({ type: 'progress', done: 0, total: 0, waiting: why });
      },
    });
    if (loadWait.timedOut) process.stderr.write(`${describeLoadWait(loadWait)} (recorded in the environment rows)\n`);
  }
  const bar = args.json ? null : createProgressBar();
  const interrupted = (signal: NodeJS.Signals): void => {
    bar?.finish();
    awake?.release();
    lock.release();
    process.stderr.write(`harness: ${signal}; the samples written so far are in ${args.out}\n`);
    process.exit(signal === 'SIGINT' ? HARNESS_EXIT.interrupted : HARNESS_EXIT.terminated);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const summary = await runPlan(plan, {
      outDir: args.out,
      ...(args.machine ? { machine: args.machine } : {}),
      planSha256: sha256Hex(bytes),
      onEvent: sendEvent,
      resume: args.resume,
      ...(loadWait ? { loadWait } : {}),
      ...(quietWindow(args['ipc-pause-ms']) ? { onQuiet: quietWindow(args['ipc-pause-ms']) } : {}),
      onSample: (done, total, slot, ok) => bar?.update(done, total, slot, ok),
    });
    bar?.finish();
    await sendEvent({ type: 'done', samples: summary.samples });
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
  } catch (error) {
    bar?.finish();
    throw error;
  } finally {
    unwatch();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    awake?.release();
    lock.release();
  }
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
    const isolation: IsolationOptions = {
      ...(args.cpus !== undefined ? { cpus: args.cpus } : {}),
      ...(args.nice !== undefined ? { nice: args.nice } : {}),
      ...(args['heap-mb'] !== undefined ? { heapMb: args['heap-mb'] } : {}),
    };
    if (Object.keys(isolation).length > 0) return reexecute(args, isolation);
    try {
      await runHere(args);
    } catch (error) {
      // The agent learns how the run ended from this event; the CLI still prints the one line.
      await sendEvent({ type: 'failed', message: errorMessage(error) });
      throw error;
    }
  },
};
