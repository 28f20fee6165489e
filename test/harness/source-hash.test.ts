// The harness source SHA256 covers exactly what the harness process runs: its import graph
// from the harness entry points (worker scripts included) and the kernel specs, so editing the
// analysis, the CLI or the coordinator's side of the wire leaves it alone and editing a record
// type does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { harnessSourceFiles, harnessSourceSha256, REPOSITORY_ROOT } from '../../agent/harness/source-hash.ts';
import { importGraph, relativeImports } from '../../agent/harness/import-graph.ts';

test('the hashed set is the harness import graph: entry, worker scripts, records and kernel specs, nothing of analysis, coordinator, cli or the wire protocol', () => {
  const files = harnessSourceFiles();
  for (const expected of ['agent/harness/runner.ts', 'agent/harness/taskpool/worker.ts', 'agent/harness/piscina-worker.ts', 'shared/records.ts', 'shared/harness-contract.ts', 'kernels/catalog.ts', 'kernels/specs/aes-cbc-input.ts']) {
    assert.ok(files.includes(expected), `${expected} is hashed`);
  }
  const outside = files.filter((f) => /^(analysis|coordinator|cli|web|test|shared\/protocol)\//.test(f) || f === 'shared/record-validate.ts' || f === 'shared/token-file.ts');
  assert.deepEqual(outside, []);
  assert.deepEqual(files, [...files].sort(), 'sorted by path');
});

test('every module the harness command uses from below the CLI is hashed (HARNESS_ENTRIES follows the harness main wherever it lives)', () => {
  const used = (importGraph(REPOSITORY_ROOT, ['cli/commands/harness.ts']).get('cli/commands/harness.ts') ?? []).filter((f) => !f.startsWith('cli/'));
  assert.ok(used.some((f) => f.startsWith('agent/harness/')), `the harness command imports the harness: ${used.join(', ')}`);
  const hashed = new Set(harnessSourceFiles());
  assert.deepEqual(used.filter((f) => !hashed.has(f)), []);
});

test('editing an analysis file, a protocol file or an unimported harness file leaves the hash alone; editing shared/records.ts changes it', () => {
  const copy = mkdtempSync(join(tmpdir(), 'bf-source-hash-'));
  try {
    // The floors the harness could import from; kernels/corpus (built wasm) is not source.
    const floors = new Set(['', 'agent', 'shared', 'kernels', 'analysis']);
    cpSync(REPOSITORY_ROOT, copy, { recursive: true, filter: (src) => floors.has(relative(REPOSITORY_ROOT, src).split(sep)[0] as string) && relative(REPOSITORY_ROOT, src) !== join('kernels', 'corpus') });
    const original = harnessSourceSha256(copy);
    assert.equal(original, harnessSourceSha256(), 'the copy hashes as the repository does');
    appendFileSync(join(copy, 'analysis/report/report-csv.ts'), '\n// a change to CSV output\n');
    appendFileSync(join(copy, 'shared/protocol/events.ts'), '\n// a change to the agent-coordinator protocol\n');
    appendFileSync(join(copy, 'agent/harness/not-imported.ts'), 'export const unused = 1;\n');
    assert.equal(harnessSourceSha256(copy), original);
    appendFileSync(join(copy, 'shared/records.ts'), '\n// a change to the records the harness writes\n');
    assert.notEqual(harnessSourceSha256(copy), original);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

test('imports are read from every import and export form and worker URLs, not from comments', () => {
  const text = [
    "import { a, type B } from './a.ts';",
    'import {',
    '  c,',
    '  d,',
    "} from '../c.ts';",
    "import type { E } from './e.ts';",
    "export * from './f.ts';",
    "import './g.ts';",
    "import { readFileSync } from 'node:fs';",
    "const h = await import('./h.ts');",
    "const W = new URL('./worker.ts', import.meta.url);",
    "// import { x } from './commented.ts';",
    ' * new URL(\'./doc.ts\', import.meta.url)',
  ].join('\n');
  assert.deepEqual(relativeImports(text), ['./a.ts', '../c.ts', './e.ts', './f.ts', './g.ts', './h.ts', './worker.ts']);
});
