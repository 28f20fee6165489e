// Benchmark: the Run page of a finished run of 1,000 machines (issue 37, point 2). The run has
// the study's record shape (19 kernels x 17 arms x 3 policies, 4 repeats, one round: 969
// samples and 3 raw files a machine), written in the coordinator's real layout (test/helpers/
// wide-runs.ts: one machine finalized for real, copied under the other names, the manifest
// written over all of them). A real coordinator process with its dashboard serves it. Measured:
// how long the dashboard takes to read the run, and `status` meanwhile; the size and time of `/api/runs/<id>` (the Run page's first answer) and of 20 other pages of
// machines, p50 and p99 over --requests; then `status` over the control socket while a Run page
// polls (its answer and a page of machines, every 250 ms); the coordinator's peak RSS and CPU.
// Targets: every Run page answer <= 1 MB, p99 <= 250 ms; status p99 <= 250 ms meanwhile.
// Absolute times on a shared 2-core machine: the load average is printed beside them.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { connectControl } from '../../cli/control-client.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { ARM_NAMES } from '../../shared/arms.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';
import { machineNames, writeWideFinishedRun } from '../helpers/wide-runs.ts';

const TARGET_BYTES = 1_000_000;
const TARGET_P99_MS = 250;
const OPTIONS = { machines: { type: 'string' }, requests: { type: 'string' } } as const;
const values = parseArgs({ options: OPTIONS, strict: true }).values;
const machines = Number(values.machines ?? 1000);
const requests = Number(values.requests ?? 20);
if (!Number.isInteger(machines) || machines < 1 || !Number.isInteger(requests) || requests < 1) {
  process.stderr.write('run-page-scale: --machines and --requests take whole numbers of at least 1\n');
  process.exit(2);
}
const KERNELS = Array.from({ length: 19 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const percentile = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
};
const spread = (xs: readonly number[]): string => `p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;

/** CPU seconds and peak RSS (MiB) of a process, from /proc. */
async function processUse(pid: number): Promise<{ cpuS: number; peakMiB: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return { cpuS: (Number(fields[11]) + Number(fields[12])) / 100, peakMiB: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024 };
}

const dir = await mkdtemp(join(tmpdir(), 'bf-run-page-bench-'));
let coordinator: Proc | null = null;
const problems: string[] = [];
const logFile = join(dir, 'coordinator.log');
try {
  console.log(`writing a finished run of ${machines} machines (${KERNELS.length} kernels x ${ARM_NAMES.length} arms x 3 policies, 4 repeats); load average ${load()}`);
  let t = performance.now();
  const data = join(dir, 'coordinator');
  const runId = await writeWideFinishedRun(data, { planName: 'run page scale', policies: ['whole', 'pages', 'checkpoint'], kernels: KERNELS, arms: ARM_NAMES, rounds: 1, repeats: 4, seed: 37 }, machineNames(machines));
  console.log(`  written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // The run index as a coordinator that saw the run finish has it: built here, so that the
  // coordinator below does not build it on start (its own cost, measured by history-scale).
  t = performance.now();
  const reindex = startBenchfleet(['reindex', '--data', data]);
  const built = await reindex.exited;
  if (built.code !== 0) throw new Error(`reindex exited ${built.code}: ${reindex.output()}`);
  console.log(`  run index built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const token = randomBytes(16).toString('hex');
  coordinator = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', data, '--dashboard', '127.0.0.1:0'], { BENCHFLEET_TOKEN: token, BENCHFLEET_LOG: 'warn' }, logFile);
  const url = (await coordinator.waitFor(/listening on (http:\/\/\S+)/, 120_000))[1] as string;
  const dashboardUrl = (await coordinator.waitFor(/dashboard on (http:\/\/[^/\s]+)/, 120_000))[1] as string;
  const login = await fetch(`${dashboardUrl}/login`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const get = async (path: string): Promise<{ ms: number; bytes: number; status: number }> => {
    const start = performance.now();
    const res = await fetch(`${dashboardUrl}${path}`, { headers: { cookie } });
    const bytes = (await res.arrayBuffer()).byteLength;
    return { ms: performance.now() - start, bytes, status: res.status };
  };
  const pid = coordinator.child.pid as number;

  // The first answer waits for the dashboard's reading of the run (started in the background
  // when it starts); `status` meanwhile says what that reading costs everything else.
  const control = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token, timeoutMs: 60_000 });
  const status = async (): Promise<number> => {
    const start = performance.now();
    await request<ControlToCoordinator, 'status'>(control, 60_000, 'status');
    return performance.now() - start;
  };
  t = performance.now();
  let reading = true;
  const statusWhileReading: number[] = [];
  const prober = (async () => {
    while (reading) {
      statusWhileReading.push(await status());
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  // Whichever fails first says so (a status that never comes, a coordinator gone).
  const first = await Promise.race([get(`/api/runs/${runId}`), prober.then(() => Promise.reject(new Error('status probing stopped')))]);
  reading = false;
  await prober;
  console.log(`first /api/runs/<id> (waits for the dashboard to read the run's ${machines * 3} summaries and verify its manifest): ${first.bytes} bytes in ${((performance.now() - t) / 1000).toFixed(1)} s, status ${first.status}; load average ${load()}`);
  console.log(`status meanwhile, ${statusWhileReading.length} requests: ${spread(statusWhileReading)}`);
  if (first.status !== 200) problems.push(`/api/runs/<id> answered ${first.status}`);

  const runAnswers: { ms: number; bytes: number }[] = [];
  for (let i = 0; i < requests; i++) runAnswers.push(await get(`/api/runs/${runId}`));
  const pageAnswers: { ms: number; bytes: number }[] = [];
  const pages = Math.ceil(machines / 20);
  for (let i = 0; i < requests; i++) pageAnswers.push(await get(`/api/runs/${runId}/machines?offset=${((i * 7 + 1) % pages) * 20}&limit=20&arm=${ARM_NAMES[1 + (i % (ARM_NAMES.length - 1))] as string}`));
  const maxRun = Math.max(...runAnswers.map((a) => a.bytes));
  const maxPage = Math.max(...pageAnswers.map((a) => a.bytes));
  console.log(`/api/runs/<id>, ${requests} requests: ${maxRun} bytes; ${spread(runAnswers.map((a) => a.ms))} (targets <= ${TARGET_BYTES} bytes, p99 <= ${TARGET_P99_MS} ms); load average ${load()}`);
  console.log(`/api/runs/<id>/machines, ${requests} pages of 20 machines (other pages and arms, each read from its summaries the first time): up to ${maxPage} bytes; ${spread(pageAnswers.map((a) => a.ms))}; load average ${load()}`);
  if (maxRun > TARGET_BYTES || maxPage > TARGET_BYTES) problems.push('an answer over 1 MB');
  if (percentile(runAnswers.map((a) => a.ms), 99) > TARGET_P99_MS || percentile(pageAnswers.map((a) => a.ms), 99) > TARGET_P99_MS) problems.push('a Run page p99 over 250 ms');

  // status while a Run page polls its answer and a page of machines every 250 ms.
  let polling = true;
  let polls = 0;
  const poller = (async () => {
    while (polling) {
      await get(`/api/runs/${runId}`);
      await get(`/api/runs/${runId}/machines?offset=${(polls % pages) * 20}&limit=20`);
      polls++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const cpuBefore = (await processUse(pid)).cpuS;
  const statusMs: number[] = [];
  for (let i = 0; i < requests * 2; i++) {
    statusMs.push(await status());
    await new Promise((r) => setTimeout(r, 250));
  }
  polling = false;
  await poller;
  control.close();
  const use = await processUse(pid);
  console.log(`status, ${statusMs.length} requests while the Run page polled (${polls} polls of its answer and a page): ${spread(statusMs)} (target p99 <= ${TARGET_P99_MS} ms); coordinator CPU meanwhile ${(use.cpuS - cpuBefore).toFixed(1)} s; load average ${load()}`);
  console.log(`coordinator peak RSS ${use.peakMiB.toFixed(0)} MiB (its whole life: start, reading the run, every answer)`);
  if (percentile(statusMs, 99) > TARGET_P99_MS) problems.push('status p99 over 250 ms');
} catch (error) {
  // What the coordinator said before it went wrong.
  console.log(`coordinator log:\n${(await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-20).join('\n')}`);
  throw error;
} finally {
  await coordinator?.stop();
  await rm(dir, { recursive: true, force: true });
}
if (problems.length > 0) {
  console.log(`MISSED: ${problems.join('; ')}`);
  process.exitCode = 1;
}
