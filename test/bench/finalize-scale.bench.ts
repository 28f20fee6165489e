// Benchmark: finalizing 10 full-study machines (21 kernels x 17 arms x 7 rounds = 2,499 samples
// per policy file, 3 policies: 30 files, synthetic) with the coordinator's own finalization
// (writeDerivedFiles: worker threads, one file per job), while the event loop is watched: its
// delay is what an ack or a `status` answer would wait on top of its own work. Targets: all 30
// summaries and the report in <= 15 s; event-loop delay p99 < 250 ms meanwhile.
// Absolute times on a shared 2-core machine: the load average is printed beside them.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { writeDerivedFiles } from '../../coordinator/runs/finalize-run.ts';
import { FINALIZE_THREADS } from '../../coordinator/runs/finalize-pool.ts';
import { RunStore } from '../../store/run-store.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';

const TARGET_S = 15;
const TARGET_DELAY_MS = 250;
const MACHINES = Array.from({ length: 10 }, (_, i) => `m${String(i).padStart(2, '0')}`);
const KERNELS = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);

const dir = await mkdtemp(join(tmpdir(), 'bf-finalize-bench-'));
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
try {
  console.log(`writing 10 machines x 3 policies x 2,499 samples (synthetic); load average ${load()}`);
  const runId = await writeFinishedRun(dir, { planName: 'finalize bench', machines: MACHINES, policies: ['whole', 'pages', 'checkpoint'], kernels: KERNELS, arms: ARM_NAMES, rounds: 7, repeats: 4, seed: 3 });
  const run = { runId, machines: Object.fromEntries(MACHINES.map((m) => [m, { state: 'completed', done: 0, total: 0, lines: {}, message: null }])) } as unknown as RunSummary;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  let progress = '';
  delay.enable();
  const t = performance.now();
  await writeDerivedFiles(new RunStore(dir).runDir(runId), run, (done, total) => (progress = `${done}/${total}`));
  const seconds = (performance.now() - t) / 1000;
  delay.disable();
  const p99 = delay.percentile(99) / 1e6;
  const max = delay.max / 1e6;
  console.log(`finalized ${progress} files and the report in ${seconds.toFixed(1)} s on ${FINALIZE_THREADS} worker thread(s) (target ${TARGET_S} s)`);
  console.log(`event-loop delay meanwhile: p50 ${(delay.percentile(50) / 1e6).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${max.toFixed(0)} ms (target p99 < ${TARGET_DELAY_MS} ms); load average ${load()}`);
  if (seconds > TARGET_S || p99 >= TARGET_DELAY_MS) {
    console.log('  MISSED the target');
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
