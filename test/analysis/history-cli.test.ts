// `benchfleet history` end to end on a data folder of finished runs (no index yet: the first
// call builds it): a 30% drop in the newest run, on the run where the machine's Node changed,
// is flagged in both cells with Node named; --fail-on regression exits 3 listing the cells;
// --csv has its header and one line per cell and run; --json carries the regressions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';

test('history flags a drop with the environment change at that run, and --fail-on regression exits 3 listing the cells', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-history-'));
  try {
    const runIds: string[] = [];
    for (let i = 0; i < 7; i++) {
      runIds.push(
        await writeFinishedRun(dir, {
          planName: 'nightly', machines: ['m1'], policies: ['pages'], kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-2-batched'], seed: i + 1,
          createdAt: `2026-11-0${i + 1}T02:00:00.000Z`,
          shift: i === 6 ? Math.log(0.7) : 0,
          environment: { node: i === 6 ? '22.1.0' : '20.20.2' },
        }),
      );
    }
    const newest = runIds[6] as string;
    const gate = await runCli(['history', '--data', dir, '--plan', 'nightly', '--last', '1', '--fail-on', 'regression']);
    assert.equal(gate.code, 3, gate.stderr);
    assert.ok((await stat(join(dir, 'index.sqlite'))).size > 0, 'the first history call built the index');
    assert.match(gate.stdout, /1 run\(s\) shown, 6 earlier run\(s\) read for the trailing windows; 2 cell\(s\)/);
    assert.match(gate.stdout, new RegExp(`m1 / pages / crc32 / taskpool-2-batched: -\\d+\\.\\d% \\[.*\\] from run ${newest} .*changed at that run: node 20\\.20\\.2 -> 22\\.1\\.0`));
    assert.match(gate.stderr, /--fail-on regression: 2 regressed cell\(s\):\n {2}m1 \/ pages \/ crc32 \/ taskpool-2-batched: -\d+\.\d% from run .*\n {2}m1 \/ pages \/ sha256 \/ taskpool-2-batched: /);

    const csv = await runCli(['history', '--data', dir, '--plan', 'nightly', '--csv']);
    assert.equal(csv.code, 0, csv.stderr);
    const lines = csv.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'machine,policy,kernel,arm,run,created_at,plan_sha256,plan_changed,median,lo,hi,rounds,failed,environment_changes,change,change_lo,change_hi,change_q,change_detected_at,change_status,confirms');
    assert.equal(lines.length, 1 + 2 * 7);
    assert.equal(lines.filter((l) => l.includes(`,${newest},`) && l.includes('node 20.20.2 -> 22.1.0')).length, 2);

    const json = await runCli(['history', '--data', dir, '--plan', 'nightly', '--kernel', 'sha256', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const view = JSON.parse(json.stdout) as { runs: { runId: string }[]; series: unknown[]; regressions: { kernel: string; at: string; change: { ratio: number; environment: unknown[] } }[] };
    assert.deepEqual(view.runs.map((r) => r.runId), runIds);
    assert.equal(view.series.length, 1);
    assert.equal(view.regressions.length, 1);
    assert.equal(view.regressions[0]?.at, newest);
    assert.ok(Math.abs((view.regressions[0]?.change.ratio ?? 0) - 0.7) < 0.05, `ratio ${view.regressions[0]?.change.ratio}`);
    assert.deepEqual(view.regressions[0]?.change.environment, [{ field: 'node', from: '20.20.2', to: '22.1.0' }]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
