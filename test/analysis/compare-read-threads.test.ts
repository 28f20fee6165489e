// compare reading raw files on worker threads: only the compared arms' samples come back, and
// the comparison is exactly the one of reading every file on this thread, corrupt lines,
// filters and refusals included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildComparison, type CompareOptions } from '../../analysis/compare/compare.ts';
import { loadRuns } from '../../analysis/compare/compare-load.ts';
import { ComparePool, loadRunsOnThreads } from '../../analysis/compare/compare-threads.ts';
import { ARM_NAMES, NATIVE_ARM } from '../../shared/arms.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

const kernels = ['aes-cbc-decrypt', 'sha256', 'lz4-compress'];

/**
 * Three runs of two machines and two policies; run-2's ryzen/pages has a bad line, a copied
 * line, CRLF endings and a torn last line. `arms` of the third run's files (default: every arm).
 */
async function makeRuns(lastArms: readonly string[] = ARM_NAMES): Promise<{ dir: string; runs: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'bf-compare-read-'));
  const runs: string[] = [];
  for (let run = 0; run < 3; run++) {
    const runDir = join(dir, `run-${run + 1}`);
    runs.push(runDir);
    for (const [m, machine] of ['ryzen', 'm2pro'].entries()) {
      await mkdir(join(runDir, machine), { recursive: true });
      for (const [p, policy] of (['pages', 'whole'] as const).entries()) {
        const records = syntheticRun({ seed: run * 100 + m * 10 + p, machine, policy, kernels, arms: run === 2 ? lastArms : ARM_NAMES, rounds: 5, repeats: 2, shift: run * 0.02 });
        let text = toJsonl(records);
        if (run === 1 && machine === 'ryzen' && policy === 'pages') {
          const lines = text.trimEnd().split('\n');
          lines.splice(5, 0, '{"type":"sample","seq":', lines[9] as string);
          text = `${lines.join('\r\n')}\r\n{"type":"sample","seq":99999,"kernel":"sha256"`;
        }
        await writeFile(join(runDir, machine, `${policy}.jsonl`), text);
      }
    }
  }
  return { dir, runs };
}

test('raw files read on worker threads give exactly the comparison of reading them here, and only the compared arms come back', async () => {
  const { dir, runs } = await makeRuns();
  try {
    const here = await loadRuns(runs, undefined);
    const cases: CompareOptions[] = [{}, { arm: 'taskpool-2-unbatched' }, { machine: 'm2pro', policy: 'whole' }, { kernel: 'sha256', arm: 'workers-4-batched' }];
    for (const options of cases) {
      const pool = new ComparePool(2);
      try {
        const threaded = await loadRunsOnThreads(runs, undefined, [], options, pool, 0);
        assert.equal(pool.started, true);
        const settings = { ...options, resamples: 200 };
        assert.deepEqual(buildComparison(threaded, settings), buildComparison(here, settings), JSON.stringify(options));
        const arm = options.arm ?? 'taskpool-8-batched';
        for (const run of threaded) {
          for (const file of run.files) {
            const compared = (options.machine === undefined || file.parsed.environment?.machine === options.machine) && (options.policy === undefined || file.stem === options.policy);
            const arms = new Set(file.parsed.samples.map((s) => s.record.arm));
            assert.deepEqual([...arms].sort(), compared ? [arm, NATIVE_ARM].sort() : [], `${run.run} ${file.folderMachine}/${file.stem}`);
            // 3 kernels x 5 rounds per arm; the bad and the copied line are left out on the worker.
            assert.equal(file.parsed.samples.length, compared ? 30 : 0);
            assert.deepEqual([...(file.whole?.arms ?? [])].sort(), ARM_NAMES.filter((a) => a !== NATIVE_ARM).sort());
          }
        }
      } finally {
        await pool.close();
      }
    }
    // The problems found in the damaged file are the same as here.
    const pool = new ComparePool(2);
    try {
      const threaded = await loadRunsOnThreads(runs, undefined, [], {}, pool, 0);
      const damaged = (r: typeof here) => r[1]?.files.find((f) => f.folderMachine === 'ryzen' && f.stem === 'pages')?.parsed.problems;
      assert.deepEqual(damaged(threaded), damaged(here));
      assert.deepEqual(damaged(here)?.map((p) => p.kind), ['malformed-json', 'duplicate-seq', 'malformed-json']);
    } finally {
      await pool.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('on worker threads the same refusals come first: a run given twice, a run that is not there', async () => {
  const { dir, runs } = await makeRuns();
  try {
    const copy = join(dir, 'copy-of-run-1');
    await cp(runs[0] as string, copy, { recursive: true });
    for (const args of [[...runs, copy], [runs[0] as string, join(dir, 'nope'), runs[1] as string]]) {
      const here = await loadRuns(args, undefined).then(
        () => null,
        (error: Error) => error,
      );
      assert.ok(here !== null);
      const pool = new ComparePool(2);
      try {
        await assert.rejects(loadRunsOnThreads(args, undefined, [], {}, pool, 0), (error: Error) => {
          assert.equal(error.message, here.message);
          assert.equal((error as { code?: string }).code, (here as { code?: string }).code);
          return true;
        });
      } finally {
        await pool.close();
      }
    }
    // Bytes that are not UTF-8 make a line that is not JSON: a problem named on the worker as here, not a failure.
    const bad = join(runs[2] as string, 'm2pro', 'whole.jsonl');
    await appendFile(bad, Buffer.from([0xff, 0xfe, 0x0a]));
    const pool = new ComparePool(2);
    try {
      const problems = (r: Awaited<ReturnType<typeof loadRuns>>) => r[2]?.files.find((f) => f.folderMachine === 'm2pro' && f.stem === 'whole')?.parsed.problems;
      const threaded = problems(await loadRunsOnThreads(runs, undefined, [], {}, pool, 0));
      assert.deepEqual(threaded, problems(await loadRuns(runs, undefined)));
      assert.deepEqual(threaded?.map((p) => p.kind), ['malformed-json']);
    } finally {
      await pool.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('on worker threads a default arm missing from a run is replaced as here, though the workers sent the samples of the default arm first', async () => {
  const { dir, runs } = await makeRuns(ARM_NAMES.filter((a) => a !== 'taskpool-8-batched'));
  try {
    const here = buildComparison(await loadRuns(runs, undefined), { resamples: 200 });
    const pool = new ComparePool(2);
    try {
      const threaded = await loadRunsOnThreads(runs, undefined, [], {}, pool, 0);
      assert.equal(pool.started, true);
      assert.deepEqual(buildComparison(threaded, { resamples: 200 }), here);
      assert.deepEqual(new Set(threaded.flatMap((r) => r.files.flatMap((f) => f.parsed.samples.map((s) => s.record.arm)))), new Set([NATIVE_ARM, 'taskpool-4-batched']));
      assert.match(here.notes.join('\n'), /taskpool-8-batched is not in every run; comparing taskpool-4-batched/);
    } finally {
      await pool.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
