// Benchmark: `compare --arm all` over 10 full-study runs (2 machines x 4 policies x 21 kernels
// x 17 arms x 7 rounds x 4 repeats: 2,499 samples per file, 199,920 samples) and `compare` of
// one arm, through the real command (loading, grouping, every figure, rendering). The runs
// are synthetic with known structure (test/helpers/synthetic-raw.ts), written once to a temp
// folder. Targets (issue 20): --arm all <= 20 s, one arm <= 3 s on the 2-core machine.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ARM_NAMES } from '../../shared/arms.ts';
import { POLICIES } from '../../shared/policies.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

const BIN = fileURLToPath(new URL('../../bin/benchfleet.js', import.meta.url));
const GNU_TIME = '/usr/bin/time';
const ALL_TARGET_S = 20;
const ONE_TARGET_S = 3;
const kernels = Array.from({ length: 21 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);
const dir = await mkdtemp(join(tmpdir(), 'bf-compare-bench-'));
let missed = false;
try {
  const runs: string[] = [];
  for (let run = 0; run < 10; run++) {
    const runDir = join(dir, `run-${run + 1}`);
    runs.push(runDir);
    for (const machine of ['ryzen', 'm2pro']) {
      await mkdir(join(runDir, machine), { recursive: true });
      for (const [p, policy] of POLICIES.slice(0, 4).entries()) {
        const records = syntheticRun({ seed: run * 100 + p * 10 + machine.length, machine, policy, kernels, arms: ARM_NAMES, rounds: 7, repeats: 4, shift: ((run % 3) - 1) * 0.01 });
        await writeFile(join(runDir, machine, `${policy}.jsonl`), toJsonl(records));
      }
    }
  }
  for (const [label, args, target] of [
    ['--arm all', ['--arm', 'all'], ALL_TARGET_S],
    ['one arm (the default)', [], ONE_TARGET_S],
  ] as const) {
    // GNU time, where there is one, adds the CPU seconds (user + system, worker threads
    // included): on a shared machine the wall time also counts the others' work.
    const timeFile = join(dir, 'time.txt');
    const command = [process.execPath, BIN, 'compare', ...runs, ...args, '--json'];
    const load = readFileSync('/proc/loadavg', 'utf8').trim();
    const start = performance.now();
    const result = existsSync(GNU_TIME)
      ? spawnSync(GNU_TIME, ['-f', '%U %S', '-o', timeFile, ...command], { encoding: 'utf8', maxBuffer: 1 << 30 })
      : spawnSync(command[0] as string, command.slice(1), { encoding: 'utf8', maxBuffer: 1 << 30 });
    const seconds = (performance.now() - start) / 1000;
    if (result.status !== 0) throw new Error(`compare ${label} exited ${result.status}: ${result.stderr}`);
    const groups = (JSON.parse(result.stdout) as { groups: unknown[] }).groups.length;
    const cpu = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number).reduce((a, b) => a + b, 0) : null;
    console.log(`compare ${label} over 10 full-study runs (${groups} groups): ${seconds.toFixed(1)} s wall${cpu === null ? '' : `, ${cpu.toFixed(1)} s CPU`}; target <= ${target} s; load average before: ${load}`);
    if (seconds > target) missed = true;
  }
  if (missed) {
    console.log('  MISSED a target');
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
