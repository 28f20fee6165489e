// The power-cut lab: a real coordinator process on the power-cut file layer
// (test/crash/power-cut-fs.mjs), two real agents running campaigns and queued runs, and
// simulated agents (the fleet-scale bench's) streaming a series of runs; the power is cut at
// random moments, the data folder laid out as the cut leaves it, and the coordinator started
// again on what survived. Then everything must finish, and: every line an agent had
// acknowledged is still there (the simulated agents notice a `next` below what was
// acknowledged), every stored file is byte for byte what its agent made, each line once, every
// run's manifest verifies, the index equals a fresh reindex, and nothing is half made.
// Used by test/fleet/fleet-power-cut.test.ts (a few cuts) and `npm run bench -- crash` (many).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyManifest } from '../../analysis/raw/manifest.ts';
import { connectControl, type ControlSocket } from '../../cli/control-client.ts';
import { createRng } from '../../shared/prng.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { dumpIndex } from './index-dump.ts';
import { startBenchfleet, type Proc } from './processes.ts';
import { lastEvents, rebuildAfterCut, startCoordinatorOnLayer } from './power-cut.ts';
import { runCli } from './run-cli.ts';
import { loadPlan, SimulatedFleet } from './simulated-agent.ts';

export interface PowerCutOptions {
  cuts: number;
  seed: number;
  /** Simulated agents beside the two real ones. */
  simulated: number;
  /** Each cut falls this long (uniformly drawn, ms) after the coordinator listens again. */
  cutAfterMs: [number, number];
  log: (line: string) => void;
}

export interface PowerCutResult {
  cuts: { n: number; afterMs: number; phase: string; filesKept: number }[];
  runs: number;
  campaigns: number;
  /** Lines the simulated agents saw acknowledged, and the real agents' lines stored. */
  acknowledgedLines: number;
  /** Acknowledged lines missing after a cut (the simulated agents' count) and files that differ from their agent's. */
  lost: number;
  problems: string[];
}

const REAL = ['real-a', 'real-b'];
const REAL_PLAN = { name: 'power cut, real', kernels: ['xxhash32', 'crc32'], arms: ['native', 'taskpool-1-batched'], policies: ['whole', 'pages'], rounds: 3, repeats: 1, jobs: 2, seed: 5, schedule: 'sequential' };

/**
 * What the coordinator was doing at a cut: its log lines and the layer's events of the last
 * 400 ms before it (the index is written by SQLite's own calls, which the layer does not see:
 * its log line tells).
 */
function phaseOf(events: { what: string; path: string }[], logTail: string[]): string {
  const paths = events.map((e) => e.path);
  if (logTail.some((l) => /\[coordinator:run-index\]|: indexed$|run index/.test(l))) return 'index writing';
  if (logTail.some((l) => /\[coordinator:campaigns\]/.test(l)) || paths.some((p) => p.startsWith('campaigns/'))) return 'campaign step';
  if (logTail.some((l) => /is free; starting its part|queued/.test(l)) || paths.some((p) => /^runs\/[^/]+\/(run|plan)\.json$/.test(p))) return 'queue step';
  if (paths.some((p) => /manifest\.json|report\.md|\.summary\.json/.test(p)) || logTail.some((l) => /summarized|finaliz/.test(l))) return 'finalization';
  if (events.some((e) => e.what === 'sync' && /\.jsonl$/.test(e.path))) return 'checkpoint';
  if (events.some((e) => e.what === 'dsync')) return 'ingest';
  return events.length === 0 && logTail.length === 0 ? 'idle' : 'other';
}

/** The coordinator's log lines of the last `windowMs` before now (each starts with its ISO time). */
function recentLog(output: string, windowMs: number): string[] {
  const now = Date.now();
  return output
    .split('\n')
    .slice(-200)
    .filter((line) => {
      const at = Date.parse(line.slice(0, 24));
      return Number.isFinite(at) && at >= now - windowMs;
    });
}

export async function runPowerCutLab(options: PowerCutOptions): Promise<PowerCutResult> {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-powercut-'));
  const data = join(dir, 'coordinator');
  const token = randomBytes(16).toString('hex');
  const env = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock'), BENCHFLEET_LOG: 'debug', BENCHFLEET_CHECKPOINT_MS: '700' };
  const rng = createRng(options.seed);
  const result: PowerCutResult = { cuts: [], runs: 0, campaigns: 0, acknowledgedLines: 0, lost: 0, problems: [] };
  const agents: Proc[] = [];
  let coordinator: Proc | null = null;
  let sims: SimulatedFleet | null = null;
  let port = 0;
  let starts = 0;
  let shadow = '';
  const start = async (): Promise<void> => {
    shadow = join(dir, `shadow-${++starts}`);
    coordinator = startCoordinatorOnLayer(['--listen', `127.0.0.1:${port}`], data, shadow, env, join(dir, 'coordinator.log'));
    const match = await coordinator.waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 120_000);
    port = Number(match[1]);
  };
  const url = (): string => `http://127.0.0.1:${port}`;
  const control = (): Promise<ControlSocket> => connectControl({ coordinator: url(), 'token-file': undefined, ca: undefined }, { token });
  const simRuns: string[] = [];
  const realRuns: string[] = [];
  const campaigns: string[] = [];
  /** New work on every machine: a campaign or a run on the real agents, a run on the simulated ones. */
  const startWork = async (n: number): Promise<void> => {
    const socket = await control();
    try {
      const realText = `${JSON.stringify({ ...REAL_PLAN, seed: 5 + n }, null, 2)}\n`;
      if (n % 2 === 0) {
        const c = unwrap(await request<ControlToCoordinator, 'campaign:start'>(socket, 60_000, 'campaign:start', { planText: realText, machines: REAL, runs: 2 }));
        campaigns.push(c.campaignId);
      } else {
        const r = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 60_000, 'run:start', { planText: realText, machines: REAL, runs: 1 }));
        realRuns.push(...r.runIds);
      }
      const simText = `${JSON.stringify({ ...loadPlan(160).plan, seed: 7 + n })}\n`;
      const s = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 60_000, 'run:start', { planText: simText, machines: sims?.names ?? [], runs: 2 }));
      simRuns.push(...s.runIds);
    } finally {
      socket.close();
    }
  };
  /** startWork once every agent is back after a restart (they reconnect with backoff): MACHINE_OFFLINE is retried for a minute. */
  const startWhenConnected = async (n: number): Promise<void> => {
    await sims?.allConnected(60_000);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        return await startWork(n);
      } catch (error) {
        if ((error as { code?: string }).code !== 'MACHINE_OFFLINE' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  };
  try {
    await start();
    for (const name of REAL) {
      const agent = startBenchfleet(['agent', '--coordinator', url(), '--name', name, '--state', join(dir, 'agents', name)], env, join(dir, `agent-${name}.log`));
      agents.push(agent);
      await agent.waitFor(/connected to .* as /, 120_000);
    }
    sims = new SimulatedFleet({ url: url(), token, count: options.simulated, prefix: 'sim', pace: 40, recordEveryMs: 100, startupSpreadMs: 200 });
    sims.connect();
    await sims.allConnected(60_000);
    await startWork(0);
    for (let n = 1; n <= options.cuts; n++) {
      const [lo, hi] = options.cutAfterMs;
      const afterMs = Math.round(lo + rng.next() * (hi - lo));
      await new Promise((resolve) => setTimeout(resolve, afterMs));
      const running = coordinator as Proc | null;
      const phase = phaseOf(await lastEvents(shadow, 400), recentLog(running?.output() ?? '', 400));
      await running?.stop('SIGKILL');
      const filesKept = await rebuildAfterCut(data, shadow);
      result.cuts.push({ n, afterMs, phase, filesKept });
      options.log(`cut ${n}/${options.cuts} after ${afterMs} ms (${phase}): ${filesKept} files kept`);
      result.problems.push(...(await halfMade(data)).map((p) => `after cut ${n}: ${p}`));
      await start();
      // Keep the machines busy: new work every few cuts, so later cuts also fall on starts,
      // finalizations and campaign steps.
      if (n % 4 === 0) await startWhenConnected(n);
    }
    // The last start stays up: every run and campaign must now finish.
    const socket = await control();
    try {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 30_000, 'status'));
        const listed = unwrap(await request<ControlToCoordinator, 'campaign:list'>(socket, 30_000, 'campaign:list'));
        const open = status.runs.filter((r) => !['completed', 'failed', 'cancelled'].includes(r.state));
        const manifests = status.runs.filter((r) => existsSync(join(data, 'runs', r.runId, 'manifest.json'))).length;
        const openCampaigns = listed.filter((c) => c.state !== 'finished' && c.state !== 'cancelled');
        if (open.length === 0 && manifests === status.runs.length && openCampaigns.length === 0) {
          for (const c of listed) {
            if (c.state !== 'finished') result.problems.push(`campaign ${c.campaignId} is ${c.state}, not finished`);
            for (const r of c.runs) if (!realRuns.includes(r.runId)) realRuns.push(r.runId);
          }
          const failed = status.runs.filter((r) => r.state !== 'completed');
          result.problems.push(...failed.map((r) => `run ${r.runId} ended ${r.state}: ${JSON.stringify(Object.values(r.machines).map((m) => m.message))}`));
          break;
        }
        if (Date.now() > deadline) throw new Error(`not finished after the last cut: ${[...open.map((r) => `run ${r.runId} ${r.state}`), ...openCampaigns.map((c) => `campaign ${c.campaignId} ${c.state}`)].join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      socket.close();
    }
    await checkStored(data, dir, sims, simRuns, realRuns, result);
    result.runs = simRuns.length + realRuns.length;
    result.campaigns = campaigns.length;
    // The index as the coordinator kept it, against one built afresh from the run folders.
    await (coordinator as Proc | null)?.stop();
    const kept = dumpIndex(data);
    const reindex = await runCli(['reindex', '--data', data, '--json']);
    if (reindex.code !== 0) result.problems.push(`reindex failed: ${reindex.stderr}`);
    else if (dumpIndex(data) !== kept) result.problems.push('the run index differs from a fresh reindex');
    return result;
  } finally {
    sims?.close();
    await Promise.all(agents.map((a) => a.stop()));
    await (coordinator as Proc | null)?.stop();
    // Kept for diagnosis when asked (POWER_CUT_KEEP=1) and something was found; else removed.
    if (process.env['POWER_CUT_KEEP'] === '1' && result.problems.length > 0) options.log(`kept for diagnosis: ${dir}`);
    else await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Runs and campaigns a cut left half made: a run.json without its plan (or another plan), a campaign.json that does not read. */
async function halfMade(data: string): Promise<string[]> {
  const problems: string[] = [];
  for (const id of await readdir(join(data, 'runs')).catch(() => [] as string[])) {
    const runFile = await readFile(join(data, 'runs', id, 'run.json'), 'utf8').catch(() => null);
    if (runFile === null) continue; // Not a run: a folder whose run.json never became durable.
    const run = JSON.parse(runFile) as { planSha256: string };
    const plan = await readFile(join(data, 'runs', id, 'plan.json')).catch(() => null);
    if (plan === null || createHash('sha256').update(plan).digest('hex') !== run.planSha256) problems.push(`run ${id}: run.json is on disk but its plan.json is ${plan === null ? 'missing' : 'another plan'}`);
  }
  for (const id of await readdir(join(data, 'campaigns')).catch(() => [] as string[])) {
    const text = await readFile(join(data, 'campaigns', id, 'campaign.json'), 'utf8').catch(() => null);
    if (text === null) continue;
    try {
      JSON.parse(text);
    } catch {
      problems.push(`campaign ${id}: campaign.json does not parse`);
    }
    if (!existsSync(join(data, 'campaigns', id, 'plan.json'))) problems.push(`campaign ${id}: no plan.json`);
  }
  return problems;
}

/** Byte for byte: the simulated agents' runs through their own check, the real agents' against their spools; every manifest verified. */
async function checkStored(data: string, dir: string, sims: SimulatedFleet | null, simRuns: readonly string[], realRuns: readonly string[], result: PowerCutResult): Promise<void> {
  const losses = sims?.figures.refusals.filter((r) => r.includes('after acknowledging')) ?? [];
  result.lost += losses.length;
  result.problems.push(...losses);
  for (const runId of simRuns) {
    const stored = await sims?.checkStored(join(data, 'runs', runId), runId);
    if (!stored) continue;
    result.problems.push(...stored.problems.map((p) => `run ${runId}: ${p}`));
    result.lost += stored.problems.length;
    result.acknowledgedLines += stored.samples + stored.files;
  }
  for (const runId of realRuns) {
    for (const machine of REAL) {
      for (const policy of REAL_PLAN.policies) {
        const mine = await readFile(join(dir, 'agents', machine, 'runs', runId, 'out', `${policy}.jsonl`)).catch(() => null);
        const theirs = await readFile(join(data, 'runs', runId, machine, `${policy}.jsonl`)).catch(() => null);
        if (mine === null || theirs === null || !mine.equals(theirs)) {
          result.lost++;
          result.problems.push(`run ${runId} ${machine}/${policy}: the coordinator's file ${theirs === null ? 'is missing' : 'differs from the agent\'s'}${mine === null ? ' (the agent has none)' : ''}`);
        } else result.acknowledgedLines += mine.toString('utf8').split('\n').length - 1;
      }
    }
  }
  for (const runId of [...simRuns, ...realRuns]) {
    const verdict = await verifyManifest(join(data, 'runs', runId));
    if (!verdict.ok) result.problems.push(`run ${runId}: manifest does not verify (${JSON.stringify(verdict.differences.slice(0, 3))})`);
  }
}
