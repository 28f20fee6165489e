// Memory: the study plan keeps the harness process's peak resident memory (main thread, every
// pool thread, every arena) under 1 GiB. Peak RSS is the process's own high-water mark
// (getrusage maxrss, which on Linux matches /proc VmHWM); the sample during which it was
// reached is reported too. What makes the bound: pools live for the whole run (one TaskPool
// whose 8 threads serve every taskpool width, four Piscina pools), a context lives for one
// sample, and Piscina contexts are released with their memory when their sample ends.
import { runStudyPlan } from './study-plan-run.ts';

const LIMIT_MIB = 1024;
let highest = 0;
let where = '';
const { summary, description } = await runStudyPlan((done, total, slot) => {
  const peak = process.resourceUsage().maxRSS / 1024;
  if (peak > highest) {
    highest = peak;
    where = `sample ${done}/${total} (${slot.policy}, ${slot.kernel}, ${slot.arm})`;
  }
});
const peak = process.resourceUsage().maxRSS / 1024;
console.log(description);
console.log(`peak RSS ${peak.toFixed(0)} MiB, first reached by ${where}; ${summary.threads} pool threads; ${summary.failedSamples} failed samples`);
const ok = peak < LIMIT_MIB && summary.failedSamples === 0;
console.log(`${ok ? 'ok  ' : 'MISS'} peak resident memory ${peak.toFixed(0)} MiB (target < ${LIMIT_MIB} MiB, every sample ok)`);
process.exit(ok ? 0 : 1);
