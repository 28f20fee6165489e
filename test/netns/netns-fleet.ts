// A fleet spread over network namespaces: the coordinator on its own host with its data on a
// small tmpfs (so that a test can fill it), and agents on hosts of their own, each with its own
// timing lock as separate machines would have. Processes run under `ip netns exec`, which execs
// benchfleet, so a SIGKILL reaches benchfleet itself. The test process reaches the coordinator
// over its own veth on the same bridge.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { connectControl, type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { verifyManifest } from '../../analysis/raw/manifest.ts';
import type { Policy } from '../../shared/policies.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { completeLines } from '../helpers/file-waits.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';
import { plannedSamples, type TestPlan } from '../helpers/test-plans.ts';
import { createNetwork, NAME_PREFIX, removeLeftovers, sh, type Network } from './netns-network.ts';

export const COORDINATOR_PORT = 7420;
/** The coordinator's data tmpfs: small, so that filling it is quick, and far larger than a test run. */
const DATA_TMPFS_SIZE = '8m';

export interface NetnsFleet {
  network: Network;
  dir: string;
  /** The coordinator's --data folder (a tmpfs mount). */
  dataDir: string;
  url: string;
  coordinator: Proc;
  agents: Map<string, Proc>;
  startCoordinator(): Promise<void>;
  /** Start agent `name` on host `host` (default: its own), with --state and timing lock of that host's. */
  startAgent(name: string, host?: string): Promise<Proc>;
  agent(name: string): Proc;
  control(): Promise<ControlSocket>;
  runDir(runId: string): string;
  rawPath(runId: string, machine: string, policy: Policy): string;
  spoolPath(runId: string, machine: string, policy: Policy): string;
  destroy(): Promise<void>;
}

/** Unmount the data tmpfs of earlier runs that died (their pid in the mount path is gone). */
async function unmountLeftovers(): Promise<void> {
  const mounts = await readFile('/proc/mounts', 'utf8');
  for (const line of mounts.split('\n')) {
    const path = line.split(' ')[1] ?? '';
    const pid = new RegExp(`/${NAME_PREFIX}(\\d+)-data$`).exec(path)?.[1];
    if (!pid || Number(pid) === process.pid) continue;
    let alive = true;
    try {
      process.kill(Number(pid), 0);
    } catch {
      alive = false;
    }
    if (!alive) await sh('umount', ['-l', path]).catch(() => undefined);
  }
}

/** `hosts`: more hosts with no agent started (a test starts its own there); `coordinatorArgs`: more flags for the coordinator. */
export async function createNetnsFleet(agentNames: readonly string[], extra: { hosts?: readonly string[]; coordinatorArgs?: readonly string[] } = {}): Promise<NetnsFleet> {
  await removeLeftovers();
  await unmountLeftovers();
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-netns-'));
  const dataDir = join(dir, `${NAME_PREFIX}${process.pid}-data`);
  await mkdir(dataDir);
  await sh('mount', ['-t', 'tmpfs', '-o', `size=${DATA_TMPFS_SIZE}`, 'tmpfs', dataDir]);
  let network: Network;
  try {
    network = await createNetwork(['coordinator', ...agentNames, ...(extra.hosts ?? [])]);
  } catch (error) {
    await sh('umount', [dataDir]).catch(() => undefined);
    throw error;
  }
  const token = randomBytes(16).toString('hex');
  const base = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOG: 'info' };
  const coordinatorHost = network.host('coordinator');
  const url = `http://${coordinatorHost.address}:${COORDINATOR_PORT}`;
  const agents = new Map<string, Proc>();
  const fleet: NetnsFleet = {
    network,
    dir,
    dataDir,
    url,
    coordinator: null as unknown as Proc,
    agents,
    async startCoordinator() {
      fleet.coordinator = startBenchfleet(['coordinator', '--listen', `${coordinatorHost.address}:${COORDINATOR_PORT}`, '--data', dataDir, ...(extra.coordinatorArgs ?? [])], base, join(dir, 'coordinator.log'), ['ip', 'netns', 'exec', coordinatorHost.netns]);
      await fleet.coordinator.waitFor(/listening on http:\/\//, 60_000);
    },
    async startAgent(name, hostName = name) {
      const host = network.host(hostName);
      const key = hostName === name ? name : `${name}@${hostName}`;
      const env = { ...base, BENCHFLEET_LOCK_FILE: join(dir, `timing-${hostName}.lock`) };
      const agent = startBenchfleet(['agent', '--coordinator', url, '--name', name, '--state', join(dir, 'agents', key)], env, join(dir, `agent-${key}.log`), ['ip', 'netns', 'exec', host.netns]);
      agents.set(key, agent);
      await agent.waitFor(/connected to .* as /, 60_000);
      return agent;
    },
    agent(name) {
      const agent = agents.get(name);
      if (!agent) throw new Error(`no agent ${name} started`);
      return agent;
    },
    control: () => connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token }),
    runDir: (runId) => join(dataDir, 'runs', runId),
    rawPath: (runId, machine, policy) => join(dataDir, 'runs', runId, machine, `${policy}.jsonl`),
    spoolPath: (runId, machine, policy) => join(dir, 'agents', machine, 'runs', runId, 'out', `${policy}.jsonl`),
    async destroy() {
      await Promise.all([...agents.values()].map((a) => a.stop('SIGKILL')));
      await fleet.coordinator?.stop('SIGKILL');
      await network.destroy();
      await sh('umount', [dataDir]).catch(() => sh('umount', ['-l', dataDir]));
      // Logs stay for diagnosis when BENCHFLEET_KEEP_NETNS_LOGS is set.
      if (!process.env['BENCHFLEET_KEEP_NETNS_LOGS']) await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await fleet.startCoordinator();
    for (const name of agentNames) await fleet.startAgent(name);
  } catch (error) {
    await fleet.destroy();
    throw error;
  }
  return fleet;
}

export async function startRun(fleet: NetnsFleet, plan: TestPlan, machines: string[]): Promise<{ runId: string; planSha256: string }> {
  const socket = await fleet.control();
  try {
    const planText = `${JSON.stringify(plan, null, 2)}\n`;
    return unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText, machines }));
  } finally {
    socket.close();
  }
}

/** Complete lines the coordinator holds of a run, over the given machines and policies. */
export async function deliveredLines(fleet: NetnsFleet, runId: string, machines: readonly string[], policies: readonly Policy[]): Promise<number> {
  let n = 0;
  for (const m of machines) for (const p of policies) n += completeLines(await readFile(fleet.rawPath(runId, m, p), 'utf8').catch(() => '')).length;
  return n;
}

/** Lines per policy file of a complete run: the environment row and one sample per (kernel, arm, round). */
export function plannedLines(plan: TestPlan): number {
  return 1 + plannedSamples(plan);
}

/**
 * Exactly once, checked against the agent's own spool: per policy, the coordinator's file is the
 * spool byte for byte (`complete`) or a prefix of it ending at a line boundary (a cancelled run),
 * every line is whole JSON, seqs run 0, 1, 2, ... with no gap or repeat, and a complete file has
 * every (kernel, arm, round) of the plan. `resumed`: a run whose agent restarted, which redoes an
 * interrupted round whole and keeps every line delivered before: the spool byte for byte, every
 * (kernel, arm, round) at least once, sample seqs increasing.
 */
export async function assertExactlyOnce(fleet: NetnsFleet, runId: string, machine: string, plan: TestPlan, expect: 'complete' | 'prefix' | 'resumed'): Promise<number> {
  let total = 0;
  for (const policy of plan.policies) {
    const where = `${machine}/${policy}.jsonl of run ${runId}`;
    const stored = await readFile(fleet.rawPath(runId, machine, policy)).catch(() => Buffer.alloc(0));
    // A cancelled run may end before the harness reached a policy: no spool file, nothing stored.
    const spool = await readFile(fleet.spoolPath(runId, machine, policy)).catch((error: NodeJS.ErrnoException) => {
      if (expect === 'prefix' && error.code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    if (expect !== 'prefix') assert.ok(stored.equals(spool), `${where}: the coordinator's copy (${stored.length} bytes) is not byte-identical to the agent's spool (${spool.length} bytes)`);
    else assert.ok(spool.subarray(0, stored.length).equals(stored) && (stored.length === 0 || stored[stored.length - 1] === 0x0a), `${where}: the coordinator's copy is not a whole-line prefix of the agent's spool`);
    const text = stored.toString('utf8');
    assert.ok(text === '' || text.endsWith('\n'), `${where}: ends in a torn line`);
    const lines = completeLines(text);
    const records = lines.map((line, i) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new assert.AssertionError({ message: `${where}: line ${i} is not whole JSON: ${line.slice(0, 80)}` });
      }
    });
    assert.equal(new Set(lines).size, lines.length, `${where}: a line is stored twice`);
    if (records.length > 0) assert.equal(records[0]?.['type'], 'environment', `${where}: line 0 is not the environment row`);
    const seqs = records.filter((r) => r['type'] === 'sample').map((r) => Number(r['seq']));
    if (expect === 'resumed') assert.ok(seqs.every((seq, i) => i === 0 || seq > (seqs[i - 1] ?? 0)), `${where}: sample seqs do not increase`);
    else assert.deepEqual(seqs, seqs.map((_, i) => i + 1), `${where}: sample seqs are not 1, 2, 3, ... in order`);
    if (expect === 'resumed') {
      const keys = new Set(records.filter((r) => r['type'] === 'sample').map((r) => `${String(r['kernel'])}/${String(r['arm'])}/${String(r['round'])}`));
      assert.equal(keys.size, plannedLines(plan) - 1, `${where}: every (kernel, arm, round) at least once`);
    }
    if (expect === 'complete') {
      assert.equal(lines.length, plannedLines(plan), `${where}: line count`);
      const keys = new Set(records.filter((r) => r['type'] === 'sample').map((r) => `${String(r['kernel'])}/${String(r['arm'])}/${String(r['round'])}`));
      assert.equal(keys.size, plannedLines(plan) - 1, `${where}: every (kernel, arm, round) once`);
    }
    total += lines.length;
  }
  return total;
}

export async function assertManifestVerifies(fleet: NetnsFleet, runId: string): Promise<void> {
  const verdict = await verifyManifest(fleet.runDir(runId));
  assert.equal(verdict.ok, true, `manifest of run ${runId}: ${JSON.stringify(verdict)}`);
}

/** Fill the file system under `path` to the last byte with one file; remove it to free the space. */
export async function fillFileSystem(path: string): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0x2e);
      for (;;) {
        try {
          const { bytesWritten } = await file.write(chunk);
          if (bytesWritten < size) break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    await file.close();
  }
}

/** Some but not all of the run's lines had reached the coordinator when the fault began. */
export function assertMidRun(deliveredAtFault: number, total: number, fault: string): void {
  assert.ok(deliveredAtFault > 0 && deliveredAtFault < total, `${fault} began with ${deliveredAtFault} of ${total} lines delivered: not mid-run`);
}
