// Benchmark: the run index at the issue's scale, synthetic: 1,000 runs x 2 machines x 4
// policies x 21 kernels x 17 arms (2.86 million cells). Run folders with summaries are written
// directly (test/helpers/indexed-runs.ts, no raw files: the index reads summaries and verifies
// each folder's manifest), then
// - reindex: the whole index built from the folders, every manifest verified (read on worker
//   threads, so its CPU time is every thread's, and the main thread's is shown apart); target >= 50 runs/s;
// - history: one machine, policy and arm of the plan (21 kernels x 1,000 runs, with change
//   detection), through the same code as the command (open, query, detect, render);
//   target <= 0.3 s; also the nightly gate (--last 1 over every cell) and the command's wall
//   time as a process (Node start-up and the TypeScript hooks included).
// BENCHFLEET_HISTORY_RUNS sets the number of runs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULT_DETECTION } from '../../analysis/history/history-types.ts';
import { regressions, renderHistory } from '../../analysis/history/history-render.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import { RunIndex } from '../../store/run-index/run-index.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { BIN } from '../helpers/processes.ts';
import { writeIndexedRuns, type IndexedRunsSpec } from '../helpers/indexed-runs.ts';

const RUNS = Number(process.env['BENCHFLEET_HISTORY_RUNS'] ?? 1000);
const KERNELS = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);
const spec: IndexedRunsSpec = {
  planName: 'study (synthetic)', runs: RUNS, machines: ['m2pro', 'ryzen'], policies: ['whole', 'pages', 'checkpoint', 'tracked'], kernels: KERNELS,
  arms: ARM_NAMES.filter((a) => a !== 'native'), seed: 9, steps: [{ run: RUNS - 2, machine: 'ryzen', kernel: 'kernel-07', arm: 'taskpool-8-batched', factor: 0.9 }],
};
const dir = await mkdtemp(join(tmpdir(), 'bf-history-scale-'));
/** This process's CPU time in ms (user + system): on a shared, loaded machine it says more than the wall clock. */
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** The main thread's CPU time in ms where Linux says it (/proc), else null: a reindex reads its folders on worker threads, whose time process.cpuUsage() adds in. */
const mainThreadCpuMs = (): number | null => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
};
let failed = false;
try {
  let t = performance.now();
  await writeIndexedRuns(dir, spec);
  console.log(`wrote ${RUNS} run folders (2 machines x 4 policies x ${KERNELS.length} kernels x ${ARM_NAMES.length} arms) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  t = performance.now();
  let cpu = cpuMs();
  const mainCpu = mainThreadCpuMs();
  const index = await RunIndex.open(dir);
  const seconds = (performance.now() - t) / 1000;
  const cpuSeconds = (cpuMs() - cpu) / 1000;
  const mainCpuAfter = mainThreadCpuMs();
  const mainText = mainCpu === null || mainCpuAfter === null ? '' : ` (the main thread ${((mainCpuAfter - mainCpu) / 1000).toFixed(1)} s)`;
  const cells = (index.database.prepare('SELECT count(*) AS n FROM cells').get() as { n: number }).n;
  const rate = (index.rebuiltOnOpen?.indexed ?? 0) / seconds;
  console.log(`reindex: ${index.rebuiltOnOpen?.indexed} runs, ${cells} cells in ${seconds.toFixed(1)} s: ${rate.toFixed(0)} runs/s (target >= 50); CPU time of every thread ${cpuSeconds.toFixed(1)} s${mainText}, ${((index.rebuiltOnOpen?.indexed ?? 0) / cpuSeconds).toFixed(0)} runs per CPU second`);
  if (!(rate >= 50)) failed = true;
  index.close();

  const times: number[] = [];
  const cpus: number[] = [];
  let flagged = 0;
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    cpu = cpuMs();
    const opened = await RunIndex.open(dir);
    const view = readHistory(opened, { plan: 'study (synthetic)', machine: 'ryzen', policy: 'pages', arm: 'taskpool-8-batched' }, DEFAULT_DETECTION);
    const text = renderHistory(view, 'text');
    opened.close();
    times.push(performance.now() - t);
    cpus.push(cpuMs() - cpu);
    flagged = regressions(view).length;
    if (text.length === 0) throw new Error('no output');
  }
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  const median = times[2] as number;
  console.log(`history --machine ryzen --policy pages --arm taskpool-8-batched (21 kernels x ${RUNS} runs): median of 5 ${(median / 1000).toFixed(3)} s (${times.map((x) => (x / 1000).toFixed(3)).join(', ')}); ${flagged} change(s) flagged (target <= 0.3 s); CPU time, median ${((cpus[2] as number) / 1000).toFixed(3)} s`);
  if (!(median <= 300)) failed = true;

  t = performance.now();
  const gateIndex = await RunIndex.open(dir);
  const gate = readHistory(gateIndex, { plan: 'study (synthetic)', last: 1 }, DEFAULT_DETECTION);
  gateIndex.close();
  console.log(`history --last 1 over every cell (${gate.series.length} cells x ${gate.runs.length} runs read): ${((performance.now() - t) / 1000).toFixed(3)} s; regressions at the newest run: ${regressions(gate).map((r) => `${r.machine}/${r.policy}/${r.kernel}/${r.arm}`).join(', ') || 'none'}`);

  t = performance.now();
  execFileSync(process.execPath, [BIN, 'history', '--data', dir, '--plan', 'study (synthetic)', '--machine', 'ryzen', '--policy', 'pages', '--arm', 'taskpool-8-batched'], { stdio: 'ignore' });
  console.log(`the history command as a process (Node and TypeScript hook start-up included): ${((performance.now() - t) / 1000).toFixed(2)} s`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
