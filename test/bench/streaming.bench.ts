// Benchmark: streaming does not disturb the timings. The same plan runs, alternately, as a
// standalone harness and under an agent that streams every sample to a coordinator (real
// processes on loopback), three times each. For every (kernel, arm) the paired median speedup
// over native is pooled per mode (median over the three runs); target: the median of the
// streamed/standalone ratios over all (kernel, arm) is within 2% of 1.
// Ratios are measured side by side in one session; absolute times on a shared 2-core box are not claims.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectControl } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { startBenchfleet } from '../helpers/processes.ts';

const TARGET = 0.02;
const PAIRS = 3;
const plan = {
  name: 'streaming disturbance benchmark',
  kernels: ['aes-cbc-decrypt', 'sha256', 'lz4-compress', 'xxhash32'],
  arms: ['native', 'workers-1-batched', 'taskpool-1-batched', 'taskpool-1-unbatched'],
  policies: ['pages'],
  rounds: 5,
  repeats: 4,
  jobs: 16,
  seed: 5,
  schedule: 'sequential',
};

const dir = await mkdtemp(join(tmpdir(), 'bf-stream-bench-'));
const token = randomBytes(16).toString('hex');
const env = { BENCHFLEET_TOKEN: token, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') };
const planPath = join(dir, 'plan.json');
await writeFile(planPath, `${JSON.stringify(plan, null, 2)}\n`);

async function speedups(rawPath: string): Promise<Map<string, number>> {
  const summary = await summarizeRawFile(rawPath, { resamples: 200 });
  const out = new Map<string, number>();
  for (const row of summary.rows) if (row.arm !== 'native' && row.speedup) out.set(`${row.kernel} ${row.arm}`, row.speedup.median);
  return out;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const coordinator = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', join(dir, 'coordinator')], env);
const url = (await coordinator.waitFor(/listening on (http:\/\/\S+)/))[1] as string;
const agent = startBenchfleet(['agent', '--coordinator', url, '--name', 'bench', '--state', join(dir, 'agent')], env);
await agent.waitFor(/connected to/);
const standalone: Map<string, number>[] = [];
const streamed: Map<string, number>[] = [];
try {
  for (let i = 0; i < PAIRS; i++) {
    const out = join(dir, `standalone-${i}`);
    const harness = startBenchfleet(['harness', '--plan', planPath, '--out', out, '--machine', 'bench'], env);
    const { code } = await harness.exited;
    if (code !== 0) throw new Error(`standalone harness failed:\n${harness.output()}`);
    standalone.push(await speedups(join(out, 'pages.jsonl')));

    const socket = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token });
    const { runId } = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 30_000, 'run:start', { planText: `${JSON.stringify(plan, null, 2)}\n`, machines: ['bench'] }));
    for (;;) {
      const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
      const run = status.runs.find((r) => r.runId === runId);
      if (run && run.state !== 'running' && (await readdir(join(dir, 'coordinator', 'runs', runId))).includes('manifest.json')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    socket.close();
    streamed.push(await speedups(join(dir, 'coordinator', 'runs', runId, 'bench', 'pages.jsonl')));
  }
  const ratios: number[] = [];
  console.log('(kernel, arm): median speedup standalone -> streamed (median of 3 runs each)');
  for (const key of standalone[0]?.keys() ?? []) {
    const a = median(standalone.map((m) => m.get(key) ?? NaN));
    const b = median(streamed.map((m) => m.get(key) ?? NaN));
    ratios.push(b / a);
    console.log(`  ${key.padEnd(40)} ${a.toFixed(3)}x -> ${b.toFixed(3)}x  (${((b / a - 1) * 100).toFixed(1)}%)`);
  }
  const overall = median(ratios);
  console.log(`median streamed/standalone ratio over ${ratios.length} (kernel, arm): ${overall.toFixed(4)} (${((overall - 1) * 100).toFixed(2)}%); target within ${TARGET * 100}%`);
  if (Math.abs(overall - 1) > TARGET) {
    console.log('  MISSED the target');
    process.exitCode = 1;
  }
} finally {
  await agent.stop();
  await coordinator.stop();
  await rm(dir, { recursive: true, force: true });
}
