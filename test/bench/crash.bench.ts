// Benchmark: the power-cut sweep. The power-cut lab (test/helpers/power-cut-lab.ts) with many
// cuts: a real coordinator on a file layer that keeps only what was made durable
// (test/crash/power-cut-fs.mjs), two real agents with campaigns and queued runs, simulated agents
// streaming series of runs; the power is cut at random moments, the data folder laid out as the
// cut leaves it, the coordinator restarted on what survived. Prints each cut with what the
// coordinator was doing, then cuts, runs, acknowledged lines and lost lines (must be 0), and
// fails loudly on any problem.
//
//   npm run bench -- crash                      24 cuts, seed 1, 6 simulated agents
//   npm run bench -- crash --cuts 40 --seed 7 --simulated 10
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { runPowerCutLab } from '../helpers/power-cut-lab.ts';

const refuse = (message: string): never => {
  process.stderr.write(`crash: ${message}; flags: --cuts N --seed N --simulated N\n`);
  process.exit(2);
};
const OPTIONS = { cuts: { type: 'string' }, seed: { type: 'string' }, simulated: { type: 'string' } } as const;
let values: { cuts?: string; seed?: string; simulated?: string } = {};
try {
  values = parseArgs({ options: OPTIONS, strict: true }).values;
} catch (error) {
  refuse(error instanceof Error ? error.message : String(error));
}
const count = (name: 'cuts' | 'seed' | 'simulated', fallback: number, min: number): number => {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) refuse(`--${name} must be an integer of at least ${min}, not ${JSON.stringify(raw)}`);
  return n;
};
const cuts = count('cuts', 24, 1);
const seed = count('seed', 1, 0);
const simulated = count('simulated', 6, 1);

console.log(`power-cut sweep: ${cuts} cuts, seed ${seed}, 2 real + ${simulated} simulated agents; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const started = Date.now();
const result = await runPowerCutLab({ cuts, seed, simulated, cutAfterMs: [800, 5000], log: (line) => console.log(line) });
const phases = new Map<string, number>();
for (const c of result.cuts) phases.set(c.phase, (phases.get(c.phase) ?? 0) + 1);
console.log(`cuts: ${result.cuts.length} (${[...phases].map(([p, n]) => `${n} ${p}`).join(', ')})`);
console.log(`runs: ${result.runs}, campaigns: ${result.campaigns}, lines acknowledged and checked: ${result.acknowledgedLines}, lost: ${result.lost}`);
console.log(`took ${((Date.now() - started) / 1000).toFixed(0)} s; load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (result.problems.length > 0 || result.lost > 0) {
  for (const p of result.problems) console.log(`PROBLEM: ${p}`);
  process.exit(1);
}
