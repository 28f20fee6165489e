// Time: the study plan spends most of its wall time inside timed repeats. Reports the share
// of wall time inside timed repeats, preparing kernels (inputs, oracles, reference runs),
// starting pools, and the rest: per-sample set-up (contexts, snapshots), warm-up, checks and
// records. Targets: timed repeats > 50% of the wall time, pool start-up < 10%.
import { runStudyPlan } from './study-plan-run.ts';

const { summary, description } = await runStudyPlan();
const share = (ns: number): number => ns / summary.wallNs;
const rest = summary.wallNs - summary.timedNs - summary.prepareNs - summary.poolStartNs;
console.log(description);
console.log(`wall ${(summary.wallNs / 1e9).toFixed(1)} s for ${summary.samples} samples (${summary.failedSamples} failed)`);
console.log(`  timed repeats        ${(share(summary.timedNs) * 100).toFixed(1).padStart(5)}%`);
console.log(`  preparing kernels    ${(share(summary.prepareNs) * 100).toFixed(1).padStart(5)}%`);
console.log(`  starting pools       ${(share(summary.poolStartNs) * 100).toFixed(1).padStart(5)}%  (${summary.threads} threads)`);
console.log(`  set-up, warm-up, checks, records ${(share(rest) * 100).toFixed(1).padStart(5)}%  (${(rest / summary.samples / 1e6).toFixed(1)} ms per sample)`);
const ok = share(summary.timedNs) > 0.5 && share(summary.poolStartNs) < 0.1 && summary.failedSamples === 0;
console.log(`${ok ? 'ok  ' : 'MISS'} timed share ${(share(summary.timedNs) * 100).toFixed(1)}% (target > 50%), pool start-up ${(share(summary.poolStartNs) * 100).toFixed(1)}% (target < 10%)`);
process.exit(ok ? 0 : 1);
