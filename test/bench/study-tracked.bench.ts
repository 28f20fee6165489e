// The study plan with the four policies (whole, pages, checkpoint, tracked) on native and
// taskpool-2-batched, all 21 kernels: per kernel, tracked's paired median speedup against
// pages' and checkpoint's. Targets: tracked >= 0.87x pages' (pages within 1.15x of it) and
// tracked >= checkpoint's, for every kernel. The study's 7 rounds of 4 repeats of 16 jobs
// (BENCHFLEET_BENCH_ROUNDS=n for fewer), but interleaved: the policies share each round, so
// drift of a shared machine falls on all four alike instead of on whichever ran last.
// Records go to a temporary folder (BENCHFLEET_BENCH_KEEP=DIR keeps them there instead).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../../agent/harness/runner.ts';
import { buildReport } from '../../analysis/report/report.ts';
import { STUDY_PLAN } from '../../shared/plan.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { kernelNames } from '../../kernels/catalog.ts';

const ARM = 'taskpool-2-batched';
const rounds = Number(process.env['BENCHFLEET_BENCH_ROUNDS'] ?? STUDY_PLAN.rounds);
const keep = process.env['BENCHFLEET_BENCH_KEEP'];
const plan = parsePlan(
  { ...STUDY_PLAN, name: 'study, four policies, taskpool-2-batched', arms: ['native', ARM], policies: ['whole', 'pages', 'checkpoint', 'tracked'], rounds, schedule: 'interleaved' },
  kernelNames(),
);
const dir = keep ?? mkdtempSync(join(tmpdir(), 'bf-bench-tracked-'));
let failed = 0;
try {
  const started = performance.now();
  const summary = await runPlan(plan, {
    outDir: dir,
    onSample: (done, total) => {
      if (done % 50 === 0 || done === total) process.stderr.write(`  ${done}/${total} samples\n`);
    },
  });
  console.log(`${summary.samples} samples (${summary.failedSamples} failed) in ${((performance.now() - started) / 1000).toFixed(0)} s: 21 kernels x native, ${ARM} x ${rounds} rounds x 4 policies, ${plan.repeats} repeats of ${plan.jobs} jobs`);
  const report = await buildReport([dir], { arm: ARM });
  const col = (p: string): number => report.policies.indexOf(p);
  console.log(`paired median speedup over native, ${ARM}`);
  console.log('kernel             whole    pages  checkpoint  tracked   tracked/pages  tracked/checkpoint');
  for (const row of report.rows) {
    const s = (p: string): number => row.cells[col(p)]?.speedup.median ?? NaN;
    const vsPages = s('tracked') / s('pages');
    const vsCheckpoint = s('tracked') / s('checkpoint');
    const ok = vsPages >= 0.87 && vsCheckpoint >= 1;
    if (!ok) failed++;
    const failures = row.cells.reduce((n, c) => n + (c?.failures ?? 0), 0);
    console.log(
      `${ok ? 'ok  ' : 'MISS'} ${row.kernel.padEnd(16)} ${s('whole').toFixed(2).padStart(5)}x ${s('pages').toFixed(2).padStart(6)}x ${s('checkpoint').toFixed(2).padStart(9)}x ${s('tracked').toFixed(2).padStart(7)}x ${vsPages.toFixed(3).padStart(13)} ${vsCheckpoint.toFixed(3).padStart(18)}${failures > 0 ? `  (${failures} failed samples)` : ''}`,
    );
  }
  for (const note of report.notes) console.log(`note: ${note}`);
  console.log(failed === 0 ? 'study-tracked: every target met' : `study-tracked: ${failed} kernels miss a target (tracked >= 0.87x pages and >= checkpoint)`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
