// Benchmark: one coordinator serves a fleet. N simulated agents (test/helpers/simulated-agent.ts)
// speak the real protocol to a real coordinator process on 127.0.0.1 and stream one sample at a
// time at the study's pace; the load generator (test/helpers/fleet-load.ts) prints ingest
// samples/s, ack p50/p99/max, `status` and dashboard API latency during ingest, progress lag,
// connect time, run:start time, coordinator peak RSS and CPU, last record -> report, and checks
// every stored file exactly once. Fails loudly on any missing, duplicated or refused sample and
// on a missed target.
//
//   npm run bench -- fleet-scale                         1,000 machines, 8 samples/s, 2 minutes
//   FLEET_MACHINES=300 FLEET_KILL_AFTER_S=30 npm run bench -- fleet-scale
//                                                        SIGKILL and restart the coordinator mid-ingest
//   FLEET_SHAPE=study npm run bench -- fleet-scale        the study's record shape, probes fired together
// Options (environment, or --machines N --pace N --samples N --duration S --kill-after S
// --progress-ms MS --record-ms MS --startup-spread-ms MS --shape fleet|study --probes staggered|together):
// FLEET_MACHINES, FLEET_PACE (samples/s per machine), FLEET_SAMPLES (per machine; default pace x
// duration), FLEET_DURATION_S, FLEET_KILL_AFTER_S, FLEET_PROGRESS_MS (the agents' `run:progress`
// pacing window; default the agent's 250 ms, 0 sends one per sample as the agent did before),
// FLEET_RECORD_MS (the agents' record batch pacing window; default the agent's 500 ms, 0 sends a
// one-line batch after every sample as the agent did before), FLEET_STARTUP_SPREAD_MS (the
// machines' first samples spread over this long after the run reaches them, as real harnesses
// start up in different times; default 1000 ms, 0 puts every machine in step). FLEET_SHAPE: `fleet`
// (default: 8 samples a round of 2 kernels x 4 arms, 2 repeats, one raw file per machine) or
// `study` (the study's record shape: 19 kernels x 17 arms x 3 policies, one round of 4 repeats:
// 969 samples and 3 raw files per machine, so FLEET_SAMPLES and FLEET_DURATION_S do not apply;
// at the default pace 121 s). FLEET_PROBES: `staggered` (default for `fleet`: `status` every
// 500 ms, /api/fleet then /api/runs every 500 ms) or `together` (default for `study`: every
// second `status`, `hello` and the Fleet, Runs and Run pages' API calls fired at once).
// Peak RSS is the coordinator's VmHWM (worker threads included) through the run's indexing.
// Absolute times on a shared 2-core machine: print the load average beside them.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeFigures, runFleetLoad, type FleetProbes, type FleetShape } from '../helpers/fleet-load.ts';
import { STARTUP_SPREAD_MS } from '../helpers/simulated-agent.ts';
import { RECORD_SEND_MS } from '../../shared/protocol/limits.ts';
import { PROGRESS_SEND_MS } from '../../shared/protocol/progress-pacer.ts';

/** A mistake in the options: one line saying what is wrong, exit 2, nothing started. */
const refuse = (message: string): never => {
  process.stderr.write(`fleet-scale: ${message}\n`);
  process.exit(2);
};
const OPTIONS = { shape: { type: 'string' }, probes: { type: 'string' }, machines: { type: 'string' }, pace: { type: 'string' }, samples: { type: 'string' }, duration: { type: 'string' }, 'kill-after': { type: 'string' }, 'progress-ms': { type: 'string' }, 'record-ms': { type: 'string' }, 'startup-spread-ms': { type: 'string' } } as const;
const values = ((): ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'] => {
  try {
    return parseArgs({ options: OPTIONS, strict: true }).values;
  } catch (error) {
    return refuse(`${error instanceof Error ? error.message : String(error)} (flags: ${Object.keys(OPTIONS).map((f) => `--${f}`).join(', ')})`);
  }
})();
const num = (flag: string | undefined, env: string, fallback: number): number => {
  const raw = flag ?? process.env[env];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n < 0) refuse(`${env} (or its flag) must be a number, got ${raw}`);
  return n;
};
const choice = <T extends string>(flag: string | undefined, env: string, allowed: readonly T[], fallback: T): T => {
  const raw = flag ?? process.env[env] ?? fallback;
  if (!(allowed as readonly string[]).includes(raw)) refuse(`${env} (or its flag) must be ${allowed.join(' or ')}, got ${raw}`);
  return raw as T;
};
const shape = choice<FleetShape>(values.shape, 'FLEET_SHAPE', ['fleet', 'study'], 'fleet');
const probes = choice<FleetProbes>(values.probes, 'FLEET_PROBES', ['staggered', 'together'], shape === 'study' ? 'together' : 'staggered');
const machines = num(values.machines, 'FLEET_MACHINES', 1000);
const pace = num(values.pace, 'FLEET_PACE', 8);
const duration = num(values.duration, 'FLEET_DURATION_S', 120);
const samples = num(values.samples, 'FLEET_SAMPLES', Math.round(pace * duration));
const killAfter = num(values['kill-after'], 'FLEET_KILL_AFTER_S', 0);
const progressMs = num(values['progress-ms'], 'FLEET_PROGRESS_MS', PROGRESS_SEND_MS);
const recordMs = num(values['record-ms'], 'FLEET_RECORD_MS', RECORD_SEND_MS);
const startupSpreadMs = num(values['startup-spread-ms'], 'FLEET_STARTUP_SPREAD_MS', STARTUP_SPREAD_MS);

const TARGETS = { ackP99Ms: 250, statusP99Ms: 250, helloP99Ms: 250, dashboardP99Ms: 250, progressLagMs: 2000, connectMs: 10_000, rssMiB: 1024, runStartMs: 1000 };

const dir = await mkdtemp(join(tmpdir(), 'bf-fleet-scale-'));
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`fleet-scale: ${machines} machines x ${shape === 'study' ? `the study's record shape (969 samples in 3 files)` : `${samples} samples`} at ${pace}/s, probes ${probes}, record batches ${recordMs > 0 ? `at most every ${recordMs} ms` : 'after every sample'}, run:progress ${progressMs > 0 ? `at most every ${progressMs} ms` : 'after every sample'}, first samples spread over ${startupSpreadMs} ms${killAfter ? `, coordinator SIGKILLed after ${killAfter} s` : ''}; load average before: ${load()}`);
try {
  const f = await runFleetLoad({
    dir,
    machines,
    pace,
    samplesPerMachine: samples,
    shape,
    probes,
    killAfterMs: killAfter * 1000,
    progressEveryMs: progressMs,
    recordEveryMs: recordMs,
    startupSpreadMs,
    timeoutMs: Math.max(600_000, ((shape === 'study' ? 969 : samples) / pace) * 4000 + 300_000),
    log: (line) => console.log(`  ${line}`),
  });
  for (const line of describeFigures(f)) console.log(line);
  console.log(`load average after: ${load()}`);
  const missed: string[] = [];
  if (f.problems.length > 0) missed.push(`exactly once: ${f.problems.slice(0, 10).join('; ')}`);
  if (f.refusals.length > 0) missed.push(`refused: ${f.refusals.slice(0, 10).join('; ')}`);
  if (f.samples !== machines * f.plannedPerMachine) missed.push(`stored ${f.samples} samples, planned ${machines * f.plannedPerMachine}`);
  if (f.runState !== 'completed') missed.push(`run ended ${f.runState}`);
  if (!killAfter) {
    if (f.ackMs.p99 > TARGETS.ackP99Ms) missed.push(`ack p99 ${f.ackMs.p99.toFixed(0)} ms > ${TARGETS.ackP99Ms}`);
    if (f.statusMs.p99 > TARGETS.statusP99Ms) missed.push(`status p99 ${f.statusMs.p99.toFixed(0)} ms > ${TARGETS.statusP99Ms}`);
    if (f.helloMs.count > 0 && f.helloMs.p99 > TARGETS.helloP99Ms) missed.push(`hello p99 ${f.helloMs.p99.toFixed(0)} ms > ${TARGETS.helloP99Ms}`);
    if (f.dashboardMs.p99 > TARGETS.dashboardP99Ms) missed.push(`dashboard API p99 ${f.dashboardMs.p99.toFixed(0)} ms > ${TARGETS.dashboardP99Ms}`);
    if (f.progressLagMs > TARGETS.progressLagMs) missed.push(`progress lag ${f.progressLagMs.toFixed(0)} ms > ${TARGETS.progressLagMs}`);
    if (f.connectMs > TARGETS.connectMs) missed.push(`connect ${f.connectMs.toFixed(0)} ms > ${TARGETS.connectMs}`);
    if (f.runStartMs > TARGETS.runStartMs) missed.push(`run:start ${f.runStartMs.toFixed(0)} ms > ${TARGETS.runStartMs}`);
  }
  if (f.peakRssMiB > TARGETS.rssMiB) missed.push(`peak RSS ${f.peakRssMiB.toFixed(0)} MiB > ${TARGETS.rssMiB}`);
  if (missed.length > 0) {
    console.log(`MISSED:\n  ${missed.join('\n  ')}`);
    process.exitCode = 1;
  } else console.log('every target met');
} finally {
  await rm(dir, { recursive: true, force: true });
}
