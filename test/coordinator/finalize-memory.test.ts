// The report of a large run is built in a heap that does not grow with its machines: the
// finalization worker (coordinator/runs/finalize-worker.ts, as the coordinator starts it) writes
// the report of 150 machines' summaries of the study's shape (19 kernels x 17 arms, three
// policies: 450 summaries, 323 rows each) under a 24 MiB old-generation cap. Holding every
// summary, as the report builder did, takes about 150 KiB of heap each, some 65 MiB here, so
// the worker ran out of memory; an entry per summary (analysis/report/report-entries.ts) keeps
// only the shown arm's cells (it passes under a 12 MiB cap as well).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { writeSummary } from '../../analysis/summary/summary-io.ts';
import { SUMMARY_FORMAT, SUMMARY_FORMAT_VERSION, type Summary, type SummaryRow } from '../../analysis/summary/summary-types.ts';
import type { FinalizeJob } from '../../coordinator/runs/finalize-worker.ts';
import { ARM_NAMES, NATIVE_ARM } from '../../shared/arms.ts';
import { POLICIES } from '../../shared/policies.ts';
import type { AnswerMessage, JobMessage } from '../../shared/worker-jobs.ts';
import { workerScript } from '../../shared/worker-script.ts';
import { environmentRecord } from '../helpers/raw-records.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const MACHINES = 150;
const KERNELS = Array.from({ length: 19 }, (_, i) => `kernel-${String(i + 1).padStart(2, '0')}`);
const STUDY_POLICIES = POLICIES.slice(0, 3);
const HEAP_CAP_MB = 24;

/** A summary of one round per (kernel, arm), figures made up but distinct per machine, policy and row. */
function summary(machine: string, m: number, policy: (typeof POLICIES)[number]): Summary {
  const rows: SummaryRow[] = [];
  let i = 0;
  for (const kernel of KERNELS) {
    for (const arm of ARM_NAMES) {
      const x = 1 + ((m * 7919 + i++ * 104_729 + policy.length) % 10_007) / 1013.7;
      const speedup = arm === NATIVE_ARM ? 1 : x;
      rows.push({
        kernel, arm, rounds: 1,
        speedup: { median: speedup, lo: speedup, hi: speedup },
        cpuRatio: { median: x / 3.1, lo: x / 3.1, hi: x / 3.1 },
        wallPerJobNs: 10_000 * x + 0.5, kernelShare: null, resetShare: null,
        samples: 1, failures: 0, failedRounds: [], failureLines: [],
      });
    }
  }
  return {
    format: SUMMARY_FORMAT, formatVersion: SUMMARY_FORMAT_VERSION, source: null,
    bootstrap: { method: 'percentile', unit: 'round', confidence: 0.95, resamples: 10_000, seed: 1 },
    environment: environmentRecord({ machine, policy, corpus: Object.fromEntries(KERNELS.map((k) => [k, 'c'.repeat(64)])), rounds: 1 }),
    segments: [], redone: [], counts: { samples: rows.length, superseded: 0, used: rows.length, failed: 0 }, rows, problems: [],
  };
}

test('the finalization worker writes the report of 150 study-shaped machines (450 summaries) within a 24 MiB heap', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t, 'bf-finalize-memory-');
  const machineDirs: string[] = [];
  for (let m = 0; m < MACHINES; m++) {
    const machine = `sim${String(m).padStart(4, '0')}`;
    const machineDir = join(dir, machine);
    await mkdir(machineDir);
    for (const policy of STUDY_POLICIES) await writeSummary(join(machineDir, `${policy}.summary.json`), summary(machine, m, policy));
    machineDirs.push(machineDir);
  }
  const script = await workerScript(new URL('../../coordinator/runs/finalize-worker.ts', import.meta.url));
  const worker = new Worker(script.filename, { execArgv: script.execArgv, resourceLimits: { maxOldGenerationSizeMb: HEAP_CAP_MB } });
  t.after(() => worker.terminate());
  const answer = await new Promise<AnswerMessage<string>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the worker exited (${code}) before answering`)));
    worker.postMessage({ id: 1, job: { kind: 'report', machineDirs } } satisfies JobMessage<FinalizeJob>);
  });
  assert.ok(answer.ok, answer.ok ? '' : answer.thrown.message);
  const lines = answer.result.split('\n');
  // One table row per machine and kernel, each with a cell of every policy.
  assert.equal(lines.filter((l) => /^\| kernel-\d\d \| sim\d{4} \|/.test(l)).length, MACHINES * KERNELS.length);
  assert.match(answer.result, /taskpool-8-batched/);
});
