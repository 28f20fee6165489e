// The plan the memory and time-share benchmarks run, in this process (it is the harness
// process). By default one round of the study plan (21 kernels x 17 arms x 3 policies = 1,071
// samples, the study's 4 repeats of 16 jobs); BENCHFLEET_BENCH_FULL=1 runs the full study plan
// (7 rounds, 7,497 samples). Records go to a temporary folder that is removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan, type RunOptions, type RunSummary } from '../../agent/harness/runner.ts';
import { STUDY_PLAN } from '../../shared/plan.ts';
import { parsePlan, planKernels } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';

export interface StudyRun {
  summary: RunSummary;
  description: string;
}

export async function runStudyPlan(onSample?: RunOptions['onSample']): Promise<StudyRun> {
  const full = process.env['BENCHFLEET_BENCH_FULL'] === '1';
  const plan = parsePlan({ ...STUDY_PLAN, rounds: full ? STUDY_PLAN.rounds : 1 }, kernelNames());
  const dir = mkdtempSync(join(tmpdir(), 'bf-bench-'));
  try {
    const summary = await runPlan(plan, { outDir: join(dir, 'out'), ...(onSample ? { onSample } : {}) });
    const description =
      `${full ? 'full study plan' : 'study plan, 1 round (BENCHFLEET_BENCH_FULL=1 for all 7)'}: ${planKernels(plan, kernelNames()).length} kernels x 17 arms x ` +
      `${plan.rounds} round(s) x ${plan.policies.length} policies = ${summary.samples} samples, ${plan.repeats} repeats of ${plan.jobs} jobs`;
    return { summary, description };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
