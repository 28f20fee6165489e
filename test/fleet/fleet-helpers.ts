// A fleet on loopback for tests: a coordinator process, agents as processes, a control client,
// and checks on what ended up on disk.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectControl, unwrap, type ControlSocket } from '../../cli/control-client.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator, RunSummary } from '../../shared/protocol/events.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';

export const SMALL_PLAN = {
  name: 'fleet test',
  kernels: ['xxhash32', 'sha256'],
  arms: ['native', 'workers-1-batched', 'taskpool-1-batched'],
  policies: ['whole', 'pages'],
  rounds: 2,
  repeats: 2,
  jobs: 4,
  seed: 3,
  schedule: 'sequential',
};

export interface Fleet {
  dir: string;
  token: string;
  env: NodeJS.ProcessEnv;
  coordinator: Proc;
  url: string;
  port: number;
  startCoordinator(port?: number): Promise<void>;
  startAgent(name: string, coordinatorUrl?: string, extraArgs?: string[]): Promise<Proc>;
  control(): Promise<ControlSocket>;
  stopAll(): Promise<void>;
}

export async function createFleet(): Promise<Fleet> {
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
    async startCoordinator(port = 0) {
      fleet.coordinator = startBenchfleet(['coordinator', '--listen', `127.0.0.1:${port}`, '--data', join(dir, 'coordinator')], env, join(dir, 'coordinator.log'));
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
    async stopAll() {
      await Promise.all(agents.map((a) => a.stop()));
      await fleet.coordinator.stop();
    },
  };
  await fleet.startCoordinator();
  return fleet;
}

export async function startRun(socket: ControlSocket, plan: object, machines: string[]): Promise<{ runId: string; planSha256: string; planText: string }> {
  const planText = `${JSON.stringify(plan, null, 2)}\n`;
  const started = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText, machines }));
  return { ...started, planText };
}

export async function waitForRun(fleet: Fleet, runId: string, timeoutMs = 240_000): Promise<RunSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let socket: ControlSocket | null = null;
    try {
      socket = await fleet.control();
      const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
      const run = status.runs.find((r) => r.runId === runId);
      if (run && run.state !== 'running') {
        // The run is final once its manifest exists (finalization writes it last).
        const files = await readdir(join(fleet.dir, 'coordinator', 'runs', runId));
        if (files.includes('manifest.json')) return run;
      }
    } catch {
      // The coordinator may be restarting.
    } finally {
      socket?.close();
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function readJsonLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Sample count of a plan per policy: kernels x arms x rounds. */
export function plannedSamples(plan: typeof SMALL_PLAN): number {
  return plan.kernels.length * plan.arms.length * plan.rounds;
}
