// A fleet on loopback for tests: a coordinator process, agents as processes, a control client,
// and checks on what ended up on disk.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectControl, type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';
import { fleetPlan, plannedSamples } from '../helpers/test-plans.ts';

export const SMALL_PLAN = fleetPlan('fleet test');
export { plannedSamples };

/**
 * SMALL_PLAN with samples of some length (each repeat 32 jobs, 4 repeats: about 2 s per policy
 * file of 5 rounds on the 2-core machine): for faults that must fall while lines are still to be
 * delivered, since an agent sends lines at most every 500 ms (RECORD_SEND_MS).
 */
export const SLOW_SAMPLES_PLAN = fleetPlan('fleet test, slower samples', { repeats: 4, jobs: 32 });

/** The smallest plan that still makes a report and a comparison: one kernel, native and one pool arm, two rounds (queues, campaigns). */
export const TINY_PLAN = fleetPlan('tiny', { kernels: ['xxhash32'], arms: ['native', 'taskpool-1-batched'], policies: ['whole'], rounds: 2, repeats: 1, jobs: 2, seed: 5 });

export interface Fleet {
  dir: string;
  token: string;
  env: NodeJS.ProcessEnv;
  coordinator: Proc;
  url: string;
  port: number;
  /** Start (or restart) the coordinator on `port` (0: any) with `dataDir` (default DIR/coordinator, where waitForRun looks) and options of its own. */
  startCoordinator(port?: number, dataDir?: string, extraArgs?: readonly string[]): Promise<void>;
  startAgent(name: string, coordinatorUrl?: string, extraArgs?: string[]): Promise<Proc>;
  control(): Promise<ControlSocket>;
  /** Stops the agents and the coordinator. */
  stopProcesses(): Promise<void>;
  /** Stops the agents and the coordinator, then removes the fleet's folder (dir). */
  stopAll(): Promise<void>;
}

/** `coordinator: false` leaves it to the test to start one (e.g. on a data folder it prepared). */
export async function createFleet(options: { coordinator?: boolean } = {}): Promise<Fleet> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-fleet-'));
  const token = randomBytes(16).toString('hex');
  const env = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock'), BENCHFLEET_LOG: 'debug' };
  const agents: Proc[] = [];
  const fleet: Fleet = {
    dir,
    token,
    env,
    coordinator: null as unknown as Proc,
    url: '',
    port: 0,
    async startCoordinator(port = 0, dataDir = join(dir, 'coordinator'), extraArgs = []) {
      fleet.coordinator = startBenchfleet(['coordinator', '--listen', `127.0.0.1:${port}`, '--data', dataDir, ...extraArgs], env, join(dir, 'coordinator.log'));
      const match = await fleet.coordinator.waitFor(/listening on (http:\/\/127\.0\.0\.1:(\d+))/);
      fleet.url = match[1] as string;
      fleet.port = Number(match[2]);
    },
    async startAgent(name, coordinatorUrl = fleet.url, extraArgs = []) {
      const agent = startBenchfleet(['agent', '--coordinator', coordinatorUrl, '--name', name, '--state', join(dir, 'agents', name), ...extraArgs], env, join(dir, `agent-${name}.log`));
      agents.push(agent);
      await agent.waitFor(/connected to .* as /);
      return agent;
    },
    control: () => connectControl({ coordinator: fleet.url, 'token-file': undefined, ca: undefined }, { token }),
    async stopProcesses() {
      await Promise.all(agents.map((a) => a.stop()));
      if (fleet.url) await fleet.coordinator.stop();
    },
    async stopAll() {
      try {
        await fleet.stopProcesses();
      } finally {
        await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      }
    },
  };
  if (options.coordinator !== false) await fleet.startCoordinator();
  return fleet;
}

export async function startRun(socket: ControlSocket, plan: object, machines: string[]): Promise<{ runId: string; planSha256: string; planText: string }> {
  const planText = `${JSON.stringify(plan, null, 2)}\n`;
  const started = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText, machines }));
  return { ...started, planText };
}

/**
 * Wait for a run's end: its report, which the coordinator sends once the run is final (after
 * the manifest is written), then its state. Fails with the run id and what was awaited.
 * Serves the loopback fleet here and the netns fleet (test/netns) alike.
 */
export async function waitForRunReport(fleet: { control(): Promise<ControlSocket> }, runId: string, timeoutMs: number): Promise<RunSummary> {
  const socket = await fleet.control();
  try {
    const reported = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for the report of run ${runId}`)), timeoutMs);
      socket.on('run:report', (report) => {
        if (report.runId !== runId) return;
        clearTimeout(timer);
        resolve();
      });
      socket.on('disconnect', (reason) => {
        clearTimeout(timer);
        reject(new Error(`lost the control connection (${reason}) while waiting for the report of run ${runId}`));
      });
    });
    unwrap(await request<ControlToCoordinator, 'run:follow'>(socket, 10_000, 'run:follow', runId));
    await reported;
    const run = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status')).runs.find((r) => r.runId === runId);
    if (!run) throw new Error(`run ${runId} reported but missing from the coordinator's status`);
    return run;
  } finally {
    socket.close();
  }
}

/** waitForRunReport on the loopback fleet, and the run's manifest is on disk. */
export async function waitForRun(fleet: Fleet, runId: string, timeoutMs = 240_000): Promise<RunSummary> {
  const run = await waitForRunReport(fleet, runId, timeoutMs);
  await stat(join(fleet.dir, 'coordinator', 'runs', runId, 'manifest.json'));
  return run;
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function readJsonLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

