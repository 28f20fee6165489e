// The fleet load generator: a real coordinator process (bin/benchfleet.js coordinator, with its
// dashboard) on 127.0.0.1, N simulated agents (simulated-agent.ts) that run one plan at a fixed
// pace, and probes while they stream: `status` and dashboard API latency, progress lag, the
// coordinator's RSS and CPU. Ends with the exactly-once check of every stored file. Used by the
// benchmark (test/bench/fleet-scale.bench.ts, full size) and by a small test (test/fleet).
// Every wait is bounded in time and fails saying what it waited for.
import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { connectControl, type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { probeCoordinator } from '../../shared/protocol/http-client.ts';
import { request } from '../../shared/protocol/request.ts';
import { startBenchfleet, type Proc } from './processes.ts';
import { loadPlan, SimulatedFleet, studyLoadPlan } from './simulated-agent.ts';

/**
 * What each machine runs. `fleet`: 8 samples a round (2 kernels x 4 arms, one policy, 2 repeats),
 * as many rounds as samplesPerMachine asks, one raw file. `study`: the study's record shape
 * (simulated-agent.ts studyLoadPlan: 969 samples of 4 repeats in 3 raw files; samplesPerMachine
 * is not used).
 */
export type FleetShape = 'fleet' | 'study';

/**
 * How the latency probes go. `staggered`: `status` every 500 ms, and /api/fleet then /api/runs
 * every 500 ms, each after the last answer. `together`: every second `status`, `hello`
 * (GET /api/v1/hello, as every CLI command and agent asks first) and the three dashboard calls
 * of an open Fleet, Runs and Run page (/api/fleet, /api/runs, /api/runs/RUN) fired at once.
 */
export type FleetProbes = 'staggered' | 'together';

export interface FleetLoadOptions {
  /** Data folder of the coordinator (a fresh temporary folder). */
  dir: string;
  machines: number;
  /** Samples per second per machine. */
  pace: number;
  samplesPerMachine: number;
  /** What each machine runs (default `fleet`). */
  shape?: FleetShape;
  /** How the latency probes go (default `staggered`). */
  probes?: FleetProbes;
  /** Pacing window of each agent's `run:progress` (default the agent's; 0: one per sample, as agents before 0.1 sent). */
  progressEveryMs?: number;
  /** Spread of the machines' first samples after the run reaches them (default the simulated fleet's STARTUP_SPREAD_MS; 0: all in step). */
  startupSpreadMs?: number;
  /** Pacing window of each agent's record batches (default the agent's RECORD_SEND_MS; 0: a batch after every sample, as earlier agents sent). */
  recordEveryMs?: number;
  /** SIGKILL the coordinator this long after run:start and restart it on the same data (0: never). */
  killAfterMs?: number;
  /** Bound on the whole load (connect, ingest, finalization). */
  timeoutMs: number;
  log?: (line: string) => void;
}

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface FleetLoadFigures {
  machines: number;
  /** Samples each machine's plan has. */
  plannedPerMachine: number;
  samples: number;
  files: number;
  problems: string[];
  refusals: string[];
  timeouts: number;
  connectMs: number;
  runStartMs: number;
  /** From run:start's answer to the last machine delivered. */
  ingestMs: number;
  samplesPerSecond: number;
  ackMs: Percentiles;
  /** The ack p99 of each 10 s of ingest (from run:start's answer), to show where the slow answers fall. */
  ackP99By10s: number[];
  statusMs: Percentiles;
  /** GET /api/v1/hello (probes `together` only; count 0 otherwise). */
  helloMs: Percentiles;
  dashboardMs: Percentiles;
  /** Each dashboard path's own latency. */
  dashboardByPath: Record<string, Percentiles>;
  /** Largest lag of the progress `status` showed behind the samples the agents had made. */
  progressLagMs: number;
  /** From the last machine delivered to the run's report. */
  reportMs: number;
  /** The first `status` after the report (the dashboard reads the final run then); NaN if unanswered in 300 s. */
  statusAfterReportMs: number;
  /** The coordinator's peak RSS (VmHWM: the whole process, worker threads included) until every machine had delivered. */
  ingestPeakRssMiB: number;
  /** Its peak RSS until the report came: ingest, summaries, report.md and manifest (the run's indexing has begun by then, its reading at least). */
  reportPeakRssMiB: number;
  /** Its peak RSS over the whole load: ingest, finalization, the run's indexing and what follows until the stored files are checked. */
  peakRssMiB: number;
  /** From the report to the run's rows in the run index (the last of finalization's work); NaN if not seen in 600 s. */
  indexedMs: number;
  /** Coordinator CPU time over the wall time of the load, as a share of one core (1 = one core busy). */
  cpuCores: number;
  /**
   * This process's own event-loop delay during ingest, ms: the thousand simulated agents and the
   * probes share it, so every latency above includes up to this much of the generator's own
   * queue (real agents each have a machine of their own).
   */
  generatorDelayMs: { p50: number; p99: number; max: number };
  runState: string;
  restarts: number;
}

export function percentiles(values: readonly number[]): Percentiles {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number): number => (s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] as number));
  return { count: s.length, p50: at(0.5), p99: at(0.99), max: s.length === 0 ? NaN : (s[s.length - 1] as number) };
}

/** CPU seconds (user + system) and peak RSS of a process, from /proc. */
async function processUse(pid: number): Promise<{ cpuS: number; hwmKiB: number; rssKiB: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuS: ticks / 100, hwmKiB: kib('VmHWM'), rssKiB: kib('VmRSS') };
}

async function dashboardSession(dashboardUrl: string, token: string): Promise<string> {
  const res = await fetch(`${dashboardUrl}/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
  const cookie = res.headers.get('set-cookie');
  if (!cookie) throw new Error(`dashboard login answered ${res.status} without a session`);
  return cookie.split(';')[0] as string;
}

function startCoordinator(dir: string, token: string, listen: string): Proc {
  // FLEET_PROFILE_DIR: write a CPU profile of the coordinator there (node --cpu-prof; exec keeps the pid).
  const profile = process.env['FLEET_PROFILE_DIR'];
  const wrapper = profile ? ['sh', '-c', `exec "$0" --cpu-prof --cpu-prof-dir=${profile} "$@"`] : [];
  // The run index's info lines (warnings from everywhere): "run RUN: indexed" ends finalization's work.
  return startBenchfleet(['coordinator', '--listen', listen, '--data', join(dir, 'coordinator'), '--dashboard', '127.0.0.1:0'], { BENCHFLEET_TOKEN: token, BENCHFLEET_LOG: process.env['FLEET_LOG'] ?? 'coordinator:run-index' }, undefined, wrapper);
}

/** Play the load; resolves with the figures (problems listed, never thrown: the caller decides). */
export async function runFleetLoad(options: FleetLoadOptions): Promise<FleetLoadFigures> {
  const log = options.log ?? (() => undefined);
  const deadline = Date.now() + options.timeoutMs;
  const left = (): number => Math.max(1000, deadline - Date.now());
  const token = randomBytes(16).toString('hex');
  let coordinator = startCoordinator(options.dir, token, '127.0.0.1:0');
  const url = (await coordinator.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1] as string;
  let dashboardUrl = (await coordinator.waitFor(/dashboard on (http:\/\/[^/\s]+)/, 60_000))[1] as string;
  let cpuBefore = 0;
  let peakKiB = 0;
  let restarts = 0;
  const fleet = new SimulatedFleet({ url, token, count: options.machines, pace: options.pace, ...(options.progressEveryMs !== undefined ? { progressEveryMs: options.progressEveryMs } : {}), ...(options.recordEveryMs !== undefined ? { recordEveryMs: options.recordEveryMs } : {}), ...(options.startupSpreadMs !== undefined ? { startupSpreadMs: options.startupSpreadMs } : {}) });
  let control: ControlSocket | null = null;
  let probing = true;
  const statusMs: number[] = [];
  const helloMs: number[] = [];
  const dashboardMs: number[] = [];
  const byPath = new Map<string, number[]>();
  let progressLagMs = 0;
  const probes: Promise<void>[] = [];
  const started = Date.now();
  try {
    const t0 = fleet.connect();
    await fleet.allConnected(Math.min(left(), 120_000));
    const connectMs = Math.max(...fleet.figures.connectedAt.values()) - t0;
    log(`${options.machines} agents connected in ${(connectMs / 1000).toFixed(1)} s`);
    control = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token, timeoutMs: 60_000 });
    const { plan, samples } = options.shape === 'study' ? studyLoadPlan() : loadPlan(options.samplesPerMachine);
    log('control connected'); const startAt = performance.now();
    const { runId } = unwrap(await request<ControlToCoordinator, 'run:start'>(control, 120_000, 'run:start', { planText: `${JSON.stringify(plan)}\n`, machines: fleet.names }));
    const runStartMs = performance.now() - startAt;
    const ingestFromPerf = performance.now();
    const ingestFrom = Date.now();
    const generatorDelay = monitorEventLoopDelay({ resolution: 10 });
    generatorDelay.enable();
    log(`run ${runId} started in ${runStartMs.toFixed(0)} ms: ${samples} samples per machine at ${options.pace}/s`);
    let cookie = await dashboardSession(dashboardUrl, token);

    // Probes during ingest: status (latency and progress lag), hello, dashboard API, coordinator RSS/CPU.
    const askStatus = async (): Promise<void> => {
      const c = control;
      if (!c?.connected) return;
      const t = performance.now();
      const answer = await request<ControlToCoordinator, 'status'>(c, 30_000, 'status').catch(() => null);
      const at = Date.now();
      if (!answer?.ok) return;
      statusMs.push(performance.now() - t);
      const run = answer.value.runs.find((r: RunSummary) => r.runId === runId);
      for (const a of fleet.agents) {
        const m = run?.machines[a.name];
        if (!m || m.state !== 'running') continue;
        const oldest = a.oldestUnshown(runId, m.done);
        if (oldest !== null) progressLagMs = Math.max(progressLagMs, at - oldest);
      }
    };
    const askDashboard = async (path: string): Promise<void> => {
      const t = performance.now();
      const ok = await fetch(`${dashboardUrl}${path}`, { headers: { cookie }, signal: AbortSignal.timeout(30_000) })
        .then(async (res) => (await res.arrayBuffer(), res.ok))
        .catch(() => false);
      if (!ok) return;
      const ms = performance.now() - t;
      dashboardMs.push(ms);
      const mine = byPath.get(path);
      if (mine) mine.push(ms);
      else byPath.set(path, [ms]);
    };
    const askHello = async (): Promise<void> => {
      const t = performance.now();
      if (await probeCoordinator({ url, token, timeoutMs: 30_000 }).then(() => true, () => false)) helloMs.push(performance.now() - t);
    };
    const every = (ms: number, probe: () => Promise<unknown>): Promise<void> =>
      (async () => {
        while (probing && Date.now() < deadline) {
          await probe();
          await new Promise((r) => setTimeout(r, ms));
        }
      })();
    if (options.probes === 'together') {
      // Fired at once every second whatever the last answers took, as independent clients would.
      const runPath = `/api/runs/${encodeURIComponent(runId)}`;
      const together = new Set<Promise<unknown>>();
      probes.push(
        every(1000, () => {
          const round = Promise.all([askStatus(), askHello(), ...['/api/fleet', '/api/runs', runPath].map(askDashboard)]);
          together.add(round);
          void round.finally(() => together.delete(round));
          return Promise.resolve();
        }),
      );
      probes.push((async () => {
        while (probing && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
        await Promise.all(together);
      })());
    } else {
      probes.push(
        every(500, askStatus),
        every(500, async () => {
          for (const path of ['/api/fleet', '/api/runs']) await askDashboard(path);
        }),
      );
    }
    probes.push(
      every(1000, async () => {
        const pid = coordinator.child.pid;
        const use = pid === undefined ? null : await processUse(pid).catch(() => null);
        if (use) peakKiB = Math.max(peakKiB, use.hwmKiB);
      }),
    );

    if (options.killAfterMs) {
      await new Promise((r) => setTimeout(r, options.killAfterMs));
      const pid = coordinator.child.pid;
      if (pid !== undefined) cpuBefore += (await processUse(pid).catch(() => ({ cpuS: 0 }))).cpuS;
      log(`SIGKILL of the coordinator after ${options.killAfterMs} ms (${fleet.sentSamples} samples made so far)`);
      await coordinator.stop('SIGKILL');
      control.close();
      control = null;
      coordinator = startCoordinator(options.dir, token, new URL(url).host);
      restarts++;
      await coordinator.waitFor(/listening on/, 60_000);
      dashboardUrl = (await coordinator.waitFor(/dashboard on (http:\/\/[^/\s]+)/, 60_000))[1] as string;
      cookie = await dashboardSession(dashboardUrl, token);
      control = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token, timeoutMs: 60_000 });
      log('coordinator restarted; agents reconnect and resend from its files');
    }

    // Followed on a connection of its own, so the report cannot be missed between two polls.
    const reported = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no report of run ${runId} in time`)), left());
      timer.unref();
      const follow = async (): Promise<void> => {
        for (;;) {
          const follower = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token, timeoutMs: 60_000 });
          follower.on('run:report', (report) => {
            if (report.runId !== runId) return;
            clearTimeout(timer);
            follower.close();
            resolve(Date.now());
          });
          const lost = new Promise<void>((r) => follower.once('disconnect', () => r()));
          unwrap(await request<ControlToCoordinator, 'run:follow'>(follower, 120_000, 'run:follow', runId));
          await lost;
          if (Date.now() > deadline) return;
        }
      };
      follow().catch(reject);
    });
    await fleet.allDelivered(runId, left());
    const deliveredAt = Date.now();
    generatorDelay.disable();
    const deliveredPid = coordinator.child.pid;
    const ingestPeakKiB = Math.max(peakKiB, deliveredPid === undefined ? 0 : (await processUse(deliveredPid).catch(() => ({ hwmKiB: 0 }))).hwmKiB);
    const ingestMs = deliveredAt - ingestFrom;
    log(`every machine delivered after ${(ingestMs / 1000).toFixed(1)} s`);
    const reportAt = await reported;
    // The run's rows go into the run index after the report is sent: the last of its finalization.
    const indexed = coordinator.waitFor(new RegExp(`run ${runId}: indexed`), Math.min(left(), 600_000)).then(() => Date.now(), () => NaN);
    const reportPid = coordinator.child.pid;
    const reportPeakKiB = Math.max(ingestPeakKiB, reportPid === undefined ? 0 : (await processUse(reportPid).catch(() => ({ hwmKiB: 0 }))).hwmKiB);
    probing = false;
    await Promise.all(probes);
    const runDir = join(options.dir, 'coordinator', 'runs', runId);
    await stat(join(runDir, 'manifest.json'));
    // After the report the coordinator's dashboard reads the final run (every summary, the
    // manifest checked): give the last status time, and keep the figures if it never comes.
    const askedAt = performance.now();
    const last = await request<ControlToCoordinator, 'status'>(control, 300_000, 'status').catch(() => null);
    const statusAfterReportMs = last === null ? NaN : performance.now() - askedAt;
    const final = last?.ok ? last.value.runs.find((r) => r.runId === runId) : undefined;
    const indexedAt = await indexed;
    const pid = coordinator.child.pid;
    const use = pid === undefined ? { cpuS: 0, hwmKiB: 0 } : await processUse(pid);
    peakKiB = Math.max(peakKiB, use.hwmKiB);
    const check = await fleet.checkStored(runDir, runId);
    // What the coordinator did after the index (its views of the final run) counts too.
    peakKiB = Math.max(peakKiB, pid === undefined ? 0 : (await processUse(pid).catch(() => ({ hwmKiB: 0 }))).hwmKiB);
    return {
      machines: options.machines,
      plannedPerMachine: samples,
      samples: check.samples,
      files: check.files,
      problems: check.problems,
      refusals: fleet.figures.refusals,
      timeouts: fleet.figures.timeouts,
      connectMs,
      runStartMs,
      ingestMs,
      samplesPerSecond: check.samples / (ingestMs / 1000),
      ackMs: percentiles(fleet.figures.ackMs),
      ackP99By10s: p99ByWindow(fleet.figures.ackAt, fleet.figures.ackMs, ingestFromPerf, 10_000),
      statusMs: percentiles(statusMs),
      helloMs: percentiles(helloMs),
      dashboardMs: percentiles(dashboardMs),
      dashboardByPath: Object.fromEntries([...byPath].map(([path, ms]) => [path.replace(runId, 'RUN'), percentiles(ms)])),
      progressLagMs,
      reportMs: reportAt - deliveredAt,
      statusAfterReportMs,
      ingestPeakRssMiB: ingestPeakKiB / 1024,
      reportPeakRssMiB: reportPeakKiB / 1024,
      peakRssMiB: peakKiB / 1024,
      indexedMs: indexedAt - reportAt,
      cpuCores: (cpuBefore + use.cpuS) / ((Date.now() - started) / 1000),
      generatorDelayMs: { p50: generatorDelay.percentile(50) / 1e6, p99: generatorDelay.percentile(99) / 1e6, max: generatorDelay.max / 1e6 },
      runState: final?.state ?? (last === null ? 'status not answered in 300 s' : 'missing'),
      restarts,
    };
  } finally {
    probing = false;
    fleet.close();
    control?.close();
    await coordinator.stop();
  }
}

/** The p99 of `values` in each `windowMs` after `from`, by the time each came (`at`). */
function p99ByWindow(at: readonly number[], values: readonly number[], from: number, windowMs: number): number[] {
  const windows: number[][] = [];
  at.forEach((t, i) => {
    const w = Math.max(0, Math.floor((t - from) / windowMs));
    (windows[w] ??= []).push(values[i] as number);
  });
  return Array.from(windows, (xs) => (xs === undefined ? Number.NaN : percentiles(xs).p99));
}

/** The figures as the benchmark prints them. */
export function describeFigures(f: FleetLoadFigures): string[] {
  const ms = (p: Percentiles): string => `p50 ${p.p50.toFixed(0)} ms, p99 ${p.p99.toFixed(0)} ms, max ${p.max.toFixed(0)} ms (${p.count})`;
  return [
    `machines ${f.machines}, samples stored ${f.samples} in ${f.files} files, run ${f.runState}${f.restarts ? `, coordinator restarted ${f.restarts}x` : ''}`,
    `exactly once: ${f.problems.length === 0 && f.refusals.length === 0 ? 'yes' : `NO (${f.problems.length} problems, ${f.refusals.length} refusals)`}; answers not received in time: ${f.timeouts}`,
    `connect: all ${f.machines} in ${(f.connectMs / 1000).toFixed(2)} s; run:start answered in ${f.runStartMs.toFixed(0)} ms`,
    `ingest: ${f.samplesPerSecond.toFixed(0)} samples/s over ${(f.ingestMs / 1000).toFixed(1)} s`,
    `ack: ${ms(f.ackMs)}`,
    `ack p99 per 10 s of ingest: ${f.ackP99By10s.map((x) => (Number.isNaN(x) ? '-' : x.toFixed(0))).join(', ')} ms`,
    `status during ingest: ${ms(f.statusMs)}`,
    ...(f.helloMs.count > 0 ? [`hello during ingest: ${ms(f.helloMs)}`] : []),
    `dashboard API during ingest: ${ms(f.dashboardMs)}`,
    ...Object.entries(f.dashboardByPath).map(([path, p]) => `  ${path}: ${ms(p)}`),
    `progress lag: max ${(f.progressLagMs / 1000).toFixed(2)} s`,
    `last record -> report: ${(f.reportMs / 1000).toFixed(2)} s; the first status after it answered in ${Number.isNaN(f.statusAfterReportMs) ? 'no time (none within 300 s)' : `${f.statusAfterReportMs.toFixed(0)} ms`}`,
    `report -> run indexed: ${Number.isNaN(f.indexedMs) ? 'not seen in 600 s' : `${(f.indexedMs / 1000).toFixed(2)} s`}`,
    `coordinator: peak RSS ${f.peakRssMiB.toFixed(0)} MiB through finalization and indexing (${f.ingestPeakRssMiB.toFixed(0)} MiB until every machine delivered, ${f.reportPeakRssMiB.toFixed(0)} MiB until the report; VmHWM, worker threads included), CPU ${(f.cpuCores * 100).toFixed(0)}% of one core`,
    `load generator's own event-loop delay during ingest (in every latency above): p50 ${f.generatorDelayMs.p50.toFixed(0)} ms, p99 ${f.generatorDelayMs.p99.toFixed(0)} ms, max ${f.generatorDelayMs.max.toFixed(0)} ms`,
  ];
}
