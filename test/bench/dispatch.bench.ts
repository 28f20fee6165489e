// Dispatch: per-job overhead of taskpool-2-unbatched against Piscina's workers-2-unbatched with
// a trivial kernel (xxHash32 of 16 bytes), both through the harness's own arm code in this
// one process. Overhead per job = the arm's wall time per job minus native's (the same jobs on
// the main thread, no dispatch). TaskPool's includes its reset (`pages`, two pages); Piscina's
// includes copying the task's input and the result. Target: TaskPool's at most a quarter of
// Piscina's. Rounds alternate the arms; each figure is the median over all repeats.
import { parseArm } from '../../shared/arms.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { runNativeSample } from '../../agent/harness/native-arm.ts';
import { PiscinaPool, runPiscinaSample } from '../../agent/harness/piscina-arm.ts';
import { prepareKernel, snapshotKernel } from '../../agent/harness/prepared-kernel.ts';
import { runTaskpoolSample } from '../../agent/harness/taskpool-arm.ts';
import { TaskPool } from '../../agent/harness/taskpool/pool.ts';
import type { ArmOutcome, SampleSpec } from '../../agent/harness/sample-spec.ts';

const JOBS = 16;
const REPEATS = 100;
const ROUNDS = 6;
const plan = parsePlan({ kernels: ['xxhash32'], arms: 'all', policies: ['pages'], rounds: 1, repeats: REPEATS, jobs: JOBS, seed: 1, inputSizes: { xxhash32: 16 } }, kernelNames());
const kernel = prepareKernel('xxhash32', plan);
const snapshot = snapshotKernel(kernel);
const spec = (arm: string): SampleSpec => ({ kernel, snapshot, arm: parseArm(arm), policy: 'pages', pageSize: 4096, jobs: JOBS, repeats: REPEATS, warmupJobs: 20 });

const perJob: Record<string, number[]> = { native: [], taskpool: [], piscina: [] };
function collect(name: string, outcome: ArmOutcome): void {
  if (!outcome.checks.ok) throw new Error(`${name}: ${outcome.checks.failures().join('; ')}`);
  for (const r of outcome.repeats) perJob[name]?.push(r.wallNs / JOBS / 1000);
}

const taskpool = new TaskPool({ width: 2 });
const piscina = new PiscinaPool(2);
await taskpool.start();
await piscina.start();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['taskpool', 'piscina'] : ['piscina', 'taskpool'];
  collect('native', runNativeSample(spec('native')));
  for (const which of order) {
    if (which === 'taskpool') collect('taskpool', await runTaskpoolSample(taskpool, spec('taskpool-2-unbatched')));
    else collect('piscina', await runPiscinaSample(piscina, spec('workers-2-unbatched'), `bench-${round}`));
  }
}
await taskpool.close();
await piscina.close();

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const native = median(perJob['native'] ?? []);
const tp = median(perJob['taskpool'] ?? []) - native;
const ps = median(perJob['piscina'] ?? []) - native;
console.log(`native                 ${native.toFixed(2).padStart(8)} µs/job (kernel call, no dispatch)`);
console.log(`taskpool-2-unbatched   ${tp.toFixed(2).padStart(8)} µs/job overhead (median wall ${median(perJob['taskpool'] ?? []).toFixed(2)} µs/job)`);
console.log(`workers-2-unbatched    ${ps.toFixed(2).padStart(8)} µs/job overhead (median wall ${median(perJob['piscina'] ?? []).toFixed(2)} µs/job)`);
const ratio = tp / ps;
const ok = ratio <= 0.25;
console.log(`${ok ? 'ok  ' : 'MISS'} taskpool / piscina overhead = ${ratio.toFixed(3)} (target <= 0.25), ${JOBS} jobs x ${REPEATS} repeats x ${ROUNDS} rounds each`);
process.exit(ok ? 0 : 1);
