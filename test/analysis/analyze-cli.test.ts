// `benchfleet analyze` from the real executable: warnings by line number with exit 0 for a
// malformed file, byte-identical summaries, one-line errors and exit 1 when nothing is usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/run-cli.ts';
import { environmentRecord, sampleRecord, toJsonl } from '../helpers/raw-records.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/analysis/${name}`, import.meta.url));

test('analyze warns about each bad line, writes the summary with its problems and exits 0', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-analyze-'));
  try {
    const out = join(dir, 'pages.summary.json');
    const result = await runCli(['analyze', fixture('malformed.jsonl'), out, '--resamples', '1000']);
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.trim().split('\n');
    // The fixture's xxhash32 samples have 2 repeats where the environment row plans 3 (kept, reported).
    assert.equal(warnings.length, 8);
    assert.match(warnings[0] ?? '', /^warning: .*malformed\.jsonl: line 5: sample has 2 repeats, the environment row's plan 3; kept$/);
    assert.match(warnings[5] ?? '', /^warning: .*malformed\.jsonl: line 14: xxhash32 taskpool-8-batched round 3 has no native sample/);
    assert.match(warnings[6] ?? '', /line 15 is a second environment row/);
    assert.match(warnings[7] ?? '', /line 16 is cut off/);
    assert.match(result.stdout, /^wrote .*pages\.summary\.json: 5 rows from 12 samples \(1 sample failed checks, 8 problems recorded; seed 1, 1000 resamples\)\n$/);
    const summary = JSON.parse(await readFile(out, 'utf8')) as { problems: { line: number }[]; bootstrap: { resamples: number } };
    assert.deepEqual(summary.problems.map((p) => p.line), [5, 6, 10, 11, 14, 14, 15, 16]);
    assert.equal(summary.bootstrap.resamples, 1000);

    // The same raw file gives the same bytes again, wherever the summary is written.
    const again = join(dir, 'again.json');
    assert.equal((await runCli(['analyze', fixture('malformed.jsonl'), again, '--resamples', '1000', '--quiet'])).code, 0);
    assert.equal(await readFile(again, 'utf8'), await readFile(out, 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('analyze of a missing file prints one line and exits 1', async () => {
  const result = await runCli(['analyze', '/nonexistent/pages.jsonl', '/tmp/never.json']);
  assert.equal(result.code, 1);
  assert.equal(result.stderr, 'Error [FILE_NOT_FOUND]: no such raw file: /nonexistent/pages.jsonl\n');
});

test('analyze of a file with no usable sample exits 1 and writes nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bf-analyze-'));
  try {
    const raw = join(dir, 'pages.jsonl');
    // An arm sample with no native partner anywhere: valid, but nothing to pair.
    await writeFile(raw, toJsonl([environmentRecord(), sampleRecord({ seq: 1, kernel: 'k', arm: 'taskpool-8-batched', round: 1, walls: [10] })]));
    const out = join(dir, 'pages.summary.json');
    const result = await runCli(['analyze', raw, out, '--seed', '-1']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'Error [USAGE]: --seed must be an integer from 0 to 4294967295, got -1\nUsage: benchfleet analyze <raw> <summary> [options]; `benchfleet analyze --help` lists every option\n');
    const empty = await runCli(['analyze', raw, out]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /Error \[RECORD_INVALID\]: .*pages\.jsonl has no usable samples \(1 valid samples, none paired with native\); no summary written\n$/);
    await assert.rejects(access(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
