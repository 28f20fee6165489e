// Benchmark: summarizing a study-sized raw file (21 kernels x 17 arms x 7 rounds, 4 repeats:
// 2,499 samples) with 10,000 bootstrap resamples per interval, read from disk. Target: < 2 s.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarizeRawFile } from '../../analysis/summary/summarize.ts';
import { studySizedRun } from '../helpers/synthetic-raw.ts';
import { toJsonl } from '../helpers/raw-records.ts';

const TARGET_MS = 2000;
const dir = await mkdtemp(join(tmpdir(), 'bf-summary-bench-'));
try {
  const path = join(dir, 'pages.jsonl');
  const records = studySizedRun(1);
  await writeFile(path, toJsonl(records));
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const summary = await summarizeRawFile(path);
    times.push(performance.now() - start);
    rows = summary.rows.length;
  }
  times.sort((a, b) => a - b);
  const median = times[2] as number;
  console.log(`summary of ${records.length - 1} samples (${rows} rows, 2 x ${rows} intervals of 10,000 resamples)`);
  console.log(`  median of 5: ${median.toFixed(0)} ms (min ${(times[0] as number).toFixed(0)} ms, max ${(times[4] as number).toFixed(0)} ms); target < ${TARGET_MS} ms`);
  if (median >= TARGET_MS) {
    console.log('  MISSED the target');
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
