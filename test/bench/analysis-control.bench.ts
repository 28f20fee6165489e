// Benchmark: analyses asked of a coordinator over /control (`history`, `compare` with
// --coordinator) hold up its event loop, where agents wait for their acks, as little as
// possible. For each request: its time, its answer's size, and the coordinator's event-loop
// delay while it was answered (perf_hooks' histogram, 10 ms resolution), beside the delay of an
// idle loop over 3 s (what the machine's load alone does). Target: a second comparison (whole on
// a worker thread; the first also builds the worker's bundle) delays the loop by at most 200 ms
// more than idle. A history is computed on the loop, as the dashboard's History
// page computes it: its figure is reported.
// `npm run bench -- analysis-control [--runs N]` (history runs, default 200).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { connectControl } from '../../cli/control-client.ts';
import { Coordinator } from '../../coordinator/server.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { writeIndexedRuns } from '../helpers/indexed-runs.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';

const TARGET_COMPARE_DELAY_MS = 200;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' } } });
const RUNS = Number(values.runs);
const KERNELS = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);

const dir = await mkdtemp(join(tmpdir(), 'bf-analysis-control-bench-'));
const token = randomBytes(16).toString('hex');
let coordinator: Coordinator | null = null;
try {
  let t = performance.now();
  await writeIndexedRuns(dir, { planName: 'nightly', runs: RUNS, machines: ['ryzen'], policies: ['pages'], kernels: KERNELS, arms: ['taskpool-2-batched', 'taskpool-8-batched'], seed: 3, steps: [{ run: RUNS - 1, kernel: 'kernel-07', arm: 'taskpool-8-batched', factor: 0.85 }] });
  const spec = { planName: 'spread', machines: ['ryzen', 'm2pro'], policies: ['pages' as const, 'whole' as const], kernels: KERNELS.slice(0, 8), arms: ['native', 'taskpool-2-batched', 'taskpool-8-batched'], rounds: 10, repeats: 3 };
  const compared: string[] = [];
  for (let i = 0; i < 3; i++) compared.push(await writeFinishedRun(dir, { ...spec, seed: 90 + i, shift: i * 0.02 }));
  console.log(`wrote ${RUNS} indexed runs (21 kernels, 2 arms) and 3 runs with raw files (2 machines, 2 policies, 8 kernels, 10 rounds) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: dir, token });
  const url = await coordinator.start();
  await coordinator.runIndex();
  const socket = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token });
  const measure = async (what: string, ask: () => Promise<unknown>): Promise<number> => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    t = performance.now();
    const answer = await ask();
    const ms = performance.now() - t;
    delay.disable();
    const maxMs = delay.max / 1e6;
    console.log(`${what}: ${(ms / 1000).toFixed(2)} s, answer ${(Buffer.byteLength(JSON.stringify(answer)) / 1024).toFixed(0)} KiB; the coordinator's event loop delayed by at most ${maxMs.toFixed(0)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms)`);
    return maxMs;
  };
  try {
    const idle = await measure('idle, 3 s', () => new Promise((done) => setTimeout(() => done(null), 3000)));
    await measure(`history, ${RUNS} runs, one machine, 42 cells, every run shown`, async () => unwrap(await request<ControlToCoordinator, 'history'>(socket, 600_000, 'history', { plan: 'nightly', direction: 'lower-is-worse', alpha: 0.05, window: 20 })));
    await measure('history, the newest run (the CI gate)', async () => unwrap(await request<ControlToCoordinator, 'history'>(socket, 600_000, 'history', { plan: 'nightly', last: 1, direction: 'lower-is-worse', alpha: 0.05, window: 20 })));
    const options = { seed: 1, resamples: 10_000, target: 0.05, runCostSeconds: 60, margin: 0.05, alpha: 0.05, includeFailed: false };
    await measure('compare, 3 runs x 32 cells, 10,000 resamples, first', async () => unwrap(await request<ControlToCoordinator, 'compare'>(socket, 600_000, 'compare', { runs: compared, options })));
    const compareDelay = await measure('compare, the same again', async () => unwrap(await request<ControlToCoordinator, 'compare'>(socket, 600_000, 'compare', { runs: compared, options })));
    const allArms = await measure('compare --arm all', async () => unwrap(await request<ControlToCoordinator, 'compare'>(socket, 600_000, 'compare', { runs: compared, options: { ...options, arm: 'all' } })));
    console.log(`load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    const ok = compareDelay - idle <= TARGET_COMPARE_DELAY_MS;
    console.log(`${ok ? 'PASS' : 'FAIL'}: compare delayed the coordinator's loop by at most ${compareDelay.toFixed(0)} ms against ${idle.toFixed(0)} ms idle (target: at most ${TARGET_COMPARE_DELAY_MS} ms more; --arm all ${allArms.toFixed(0)} ms)`);
    process.exitCode = ok ? 0 : 1;
  } finally {
    socket.close();
  }
} finally {
  await coordinator?.close();
  await rm(dir, { recursive: true, force: true });
}
