// The harness process's main: one local run of a plan (`benchfleet harness`, or a harness child
// the agent starts). It reads and checks the plan, takes the machine's timing lock, waits for a
// quiet machine, keeps the machine awake, runs the plan and says how it ended: to the IPC
// parent as harness events (shared/harness-contract.ts), to the caller as the run's summary.
// With isolation options it re-executes itself under taskset / nice / a heap cap instead
// (reexecuteHarness). The CLI only parses the flags and prints; nothing here prints a result.
import { spawn } from 'node:child_process';
import { kernelNames } from '../../kernels/catalog.ts';
import { sha256Hex } from '../../kernels/corpus.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { harnessArgs, HARNESS_EXIT, checkIsolation, isolatedCommand, type HarnessLaunch, type IsolationOptions } from '../../shared/harness-contract.ts';
import { describeLoadWait } from '../../shared/load-wait-text.ts';
import { applyPolicyEnv } from '../../shared/plan-policy-env.ts';
import { packPlanModules } from '../../kernels/user-module/pack.ts';
import { checkPlanModules } from '../../kernels/user-module/prepare.ts';
import { parsePlan, planArms, planKernels } from '../../shared/plan-validate.ts';
import type { LoadWait } from '../../shared/records.ts';
import { waitForLoad } from './load-wait.ts';
import { preventSleep } from './no-sleep.ts';
import { exitWithParent, quietWindow, sendEvent } from './parent-link.ts';
import { createProgressBar } from './progress.ts';
import { prepareOutputDir } from './record-writer.ts';
import { runPlan, type RunSummary } from './runner.ts';
import { acquireTimingLock, describeLockWait, timingLockFile } from './timing-lock.ts';

/** A harness run in this process: the launch's flags, with the lock wait always stated. */
export interface HarnessMainOptions extends HarnessLaunch {
  lockWaitSeconds: number;
  /** The plan file's bytes (the caller owns how a file named on a command line is read and what its errors say). */
  readPlan: (path: string) => Promise<Uint8Array>;
}

/**
 * Run this same command in a child under taskset/nice/heap cap; forward its events and signals.
 * Resolves with the child's exit code.
 */
export async function reexecuteHarness(launch: HarnessLaunch, isolation: IsolationOptions): Promise<number> {
  checkIsolation(isolation);
  const [file, argv] = isolatedCommand(harnessArgs(launch), isolation);
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
  return code;
}

/**
 * Run the plan here and resolve with its summary. A failure is also told to the IPC parent as a
 * `failed` event (the agent learns how the run ended from it) before it is thrown.
 */
export async function runHarness(options: HarnessMainOptions): Promise<RunSummary> {
  try {
    return await runHere(options);
  } catch (error) {
    await sendEvent({ type: 'failed', message: errorMessage(error) });
    throw error;
  }
}

async function runHere(options: HarnessMainOptions): Promise<RunSummary> {
  // FOLIO_CORPUS_RESET and the plan's own modules go into the plan text before it is hashed
  // (records name that hash); a plan that already carries them (the agent's) stays byte for byte.
  const bytes = new TextEncoder().encode(packPlanModules(applyPolicyEnv(new TextDecoder().decode(await options.readPlan(options.plan))), options.plan));
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `--plan ${options.plan} is not JSON: ${errorMessage(error)}`);
  }
  let plan;
  try {
    plan = parsePlan(json, kernelNames());
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `${options.plan}: ${errorMessage(error)}`);
  }
  // A module of the plan's own that breaks the context contract is refused before the lock and the output folder.
  checkPlanModules(plan.modules);
  if (!(options.lockWaitSeconds >= 0)) throw new BenchfleetError('USAGE', `--lock-wait must be a number of seconds >= 0, got ${options.lockWaitSeconds}`);
  // A resumed run continues the folder's files; the runner checks they are this plan's.
  if (!options.resume) prepareOutputDir(options.out);
  // Watched from before the lock wait: an agent that dies while its harness waits ends that wait
  // too; one that died while this process was starting stops it here, before it takes the lock.
  const unwatch = exitWithParent();
  // A machine that waits shows the plan's size (0/180), not 0/0.
  const plannedSamples = planKernels(plan, kernelNames()).length * planArms(plan).length * plan.policies.length * plan.rounds;
  const lock = await acquireTimingLock({
    what: `harness --plan ${options.plan}`,
    file: timingLockFile(process.env, options.lockFile),
    limitSeconds: options.lockWaitSeconds,
    onWait: (wait) => {
      process.stderr.write(`${describeLockWait(wait, true)}\n`);
      void sendEvent({ type: 'progress', done: 0, total: plannedSamples, waiting: describeLockWait(wait, true) });
    },
  });
  const awake = preventSleep();
  let loadWait: LoadWait | undefined;
  if (options.maxLoad !== undefined) {
    const maxLoad = options.maxLoad;
    const limitSeconds = options.maxLoadWaitSeconds ?? 900;
    loadWait = await waitForLoad({
      maxLoad,
      limitSeconds,
      onWait: (load) => {
        const why = `waiting for the 1-minute load average (${load.toFixed(2)}) to fall below ${maxLoad} (at most ${limitSeconds} s)`;
        process.stderr.write(`${why}\n`);
        void sendEvent({ type: 'progress', done: 0, total: plannedSamples, waiting: why });
      },
    });
    if (loadWait.timedOut) process.stderr.write(`${describeLoadWait(loadWait)} (recorded in the environment rows)\n`);
  }
  // Under the agent (an IPC channel) the agent reports progress; the harness's stderr is only
  // read for why it failed.
  const bar = options.json ? null : createProgressBar(process.stderr, { plainLines: process.send === undefined });
  const interrupted = (signal: NodeJS.Signals): void => {
    bar?.finish();
    awake?.release();
    lock.release();
    process.stderr.write(`harness: ${signal}; the samples written so far are in ${options.out}\n`);
    process.exit(signal === 'SIGINT' ? HARNESS_EXIT.interrupted : HARNESS_EXIT.terminated);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const onQuiet = quietWindow(options.ipcPauseMs);
    const summary = await runPlan(plan, {
      outDir: options.out,
      ...(options.machine ? { machine: options.machine } : {}),
      planSha256: sha256Hex(bytes),
      onEvent: sendEvent,
      resume: options.resume === true,
      ...(loadWait ? { loadWait } : {}),
      ...(onQuiet ? { onQuiet } : {}),
      onSample: (done, total, slot, ok) => bar?.update(done, total, slot, ok),
    });
    bar?.finish();
    await sendEvent({ type: 'done', samples: summary.samples });
    return summary;
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
