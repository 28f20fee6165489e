// `benchfleet compare` from the real executable: run ids in a coordinator data folder, result
// folders by path, JSON output, the --fail-on gate's exit code, and one-line errors for runs
// that do not exist or are given twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toJsonl } from '../helpers/raw-records.ts';
import { runCli } from '../helpers/run-cli.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';

test('compare reads runs from the data folder and prints JSON groups', async () => {
  const data = await mkdtemp(join(tmpdir(), 'bf-compare-'));
  try {
    const runs: [string, number][] = [['r-1', 7.42], ['r-2', 4.8]];
    for (const [id, speedup] of runs) {
      for (const machine of ['ryzen', 'm2pro']) {
        await mkdir(join(data, 'runs', id, machine), { recursive: true });
        await writeFile(join(data, 'runs', id, machine, 'pages.jsonl'), toJsonl(syntheticRun({ seed: id.length + machine.length + speedup, machine, speedup: machine === 'ryzen' ? speedup : 5 })));
      }
      await writeFile(join(data, 'runs', id, 'plan.json'), '{}\n');
    }
    // The two runs differ by a factor 1.5: --fail-on unstable prints everything, then exits 3.
    const result = await runCli(['compare', 'r-1', 'r-2', '--data', data, '--machine', 'ryzen', '--json', '--resamples', '1000', '--fail-on', 'unstable']);
    assert.equal(result.code, 3, result.stderr);
    assert.equal(
      result.stderr,
      'compare: --fail-on unstable: 1 group(s) unstable (a run effect not shown within the margin)\n  unstable: ryzen / pages / aes-cbc-decrypt / taskpool-8-batched: two runs are shown to differ by more than the margin\n',
    );
    const json = JSON.parse(result.stdout) as { groups: { machine: string; runs: { run: string; median: number }[]; verdict: string }[] };
    assert.equal(json.groups.length, 1);
    assert.equal(json.groups[0]?.machine, 'ryzen');
    assert.deepEqual(json.groups[0]?.runs.map((r) => r.run), ['r-1', 'r-2']);
    // The synthetic runs have 2% round noise around 7.42x and 4.80x.
    assert.ok(Math.abs((json.groups[0]?.runs[0]?.median ?? 0) / 7.42 - 1) < 0.03);
    assert.ok(Math.abs((json.groups[0]?.runs[1]?.median ?? 0) / 4.8 - 1) < 0.03);
    assert.equal(json.groups[0]?.verdict, 'unstable-beyond-margin');

    // A run folder by path works without --data; markdown on a pipe.
    const byPath = await runCli(['compare', join(data, 'runs', 'r-1'), join(data, 'runs', 'r-2'), '--resamples', '1000']);
    assert.equal(byPath.code, 0, byPath.stderr);
    assert.match(byPath.stdout, /^### Machines side by side: pages, taskpool-8-batched/m);
    assert.match(byPath.stdout, /^### ryzen \/ pages \/ aes-cbc-decrypt \/ taskpool-8-batched \(plan aaaaaaaaaaaa\)$/m);
    assert.match(byPath.stdout, /^- verdict: unstable beyond margin$/m);

    const twice = await runCli(['compare', 'r-1', join(data, 'runs', 'r-1'), '--data', data]);
    assert.equal(twice.code, 2);
    assert.equal(twice.stderr, `Error [USAGE]: "${join(data, 'runs', 'r-1')}" is the same run as "r-1" (${join(data, 'runs', 'r-1')}); compare needs distinct runs\nUsage: benchfleet compare <runs..> [options]; \`benchfleet compare --help\` lists every option\n`);

    const missing = await runCli(['compare', 'r-9', '--data', data]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `Error [UNKNOWN_RUN]: "r-9" is neither a folder nor a run in ${join(data, 'runs')}; \`benchfleet status\` lists the runs\n`);
    const noData = await runCli(['compare', 'r-1'], { env: { BENCHFLEET_COORDINATOR: '' } });
    assert.equal(noData.code, 2);
    assert.equal(noData.stderr.split('\n')[0], 'Error [USAGE]: "r-1" is not a folder here; to name a run by id, give the coordinator\'s data folder with --data DIR, or the coordinator with --coordinator URL (or set BENCHFLEET_COORDINATOR) and a control token');
  } finally {
    await rm(data, { recursive: true, force: true });
  }
});
