// The floors of the code, kept true by reading every import of every source file (the same
// reader as the harness source hash): shared/ is the contract and imports nothing above it;
// kernels/ builds on shared/ only; agent/ and analysis/ build on those and not on each other;
// store/ (the data folder: run folders, campaigns, the run index) on those; coordinator/ on
// those; web/ (the dashboard's pages and the HTML report) on those; cli/ on everything, its
// commands never on each other, and on coordinator/ only in the commands that start a
// coordinator. No module reaches itself through its imports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importGraph } from '../../agent/harness/import-graph.ts';
import { REPOSITORY_ROOT } from '../../agent/harness/source-hash.ts';

/** Each floor and the floors below it that it may import (its own always). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: [],
  kernels: ['shared'],
  agent: ['kernels', 'shared'],
  analysis: ['kernels', 'shared'],
  store: ['analysis', 'kernels', 'shared'],
  coordinator: ['store', 'analysis', 'kernels', 'shared'],
  web: ['coordinator', 'store', 'analysis', 'kernels', 'shared'],
  cli: ['web', 'coordinator', 'store', 'agent', 'analysis', 'kernels', 'shared', 'deploy'],
  bin: ['cli'],
};
/** Not TypeScript of this program: AssemblyScript kernel sources (compiled by asc), built output, tests. */
const NOT_SOURCE = new Set(['node_modules', '.git', 'test', 'types', 'dist', 'corpus', 'assembly']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return NOT_SOURCE.has(entry.name) ? [] : sources(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [relative(REPOSITORY_ROOT, path).split(sep).join('/')] : [];
  });
}

/**
 * The cli/ files that may import coordinator/: the commands that start a coordinator
 * (`coordinator`, `demo`). The commands that open a coordinator's data folder with no
 * coordinator running (`history`, `reindex`, `campaign report`) read it through store/, the
 * floor both share; everything else talks to a coordinator over the wire and shares with it
 * only what shared/ holds (limits such as shared/agent-limits.ts included), so `--help` and the
 * client commands never load the server.
 */
const CLI_MAY_IMPORT_COORDINATOR: Record<string, 'any' | readonly string[]> = {
  'cli/commands/coordinator.ts': 'any',
  'cli/commands/demo.ts': 'any',
};

const files = sources(REPOSITORY_ROOT).filter((f) => f.includes('/'));
const graph = importGraph(REPOSITORY_ROOT, files);
const floor = (file: string): string => file.split('/')[0] as string;

test('every import goes to its own floor or one below it, and no command imports another command', () => {
  assert.ok(graph.size > 200, `read ${graph.size} modules`);
  const wrong: string[] = [];
  for (const [file, imports] of graph) {
    const allowed = MAY_IMPORT[floor(file)];
    assert.ok(allowed, `${file} is on no known floor`);
    for (const target of imports) {
      if (floor(target) !== floor(file) && !allowed.includes(floor(target))) wrong.push(`${file} -> ${target}`);
      if (file.startsWith('cli/commands/') && target.startsWith('cli/commands/')) wrong.push(`${file} -> ${target} (a command imports a command)`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('cli imports coordinator only in the commands that start a coordinator', () => {
  const wrong: string[] = [];
  const used = new Set<string>();
  for (const [file, imports] of graph) {
    if (floor(file) !== 'cli') continue;
    for (const target of imports.filter((t) => floor(t) === 'coordinator')) {
      const allowed = CLI_MAY_IMPORT_COORDINATOR[file];
      if (allowed === 'any' || allowed?.includes(target)) used.add(`${file} -> ${allowed === 'any' ? 'any' : target}`);
      else wrong.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
  // An exception nothing uses any more is dropped from the list, so the list stays the truth.
  const listed = Object.entries(CLI_MAY_IMPORT_COORDINATOR).flatMap(([file, allowed]) => (allowed === 'any' ? [`${file} -> any`] : allowed.map((t) => `${file} -> ${t}`)));
  assert.deepEqual(listed.filter((e) => !used.has(e)), []);
});

test('a command loads its implementation in its handler (await import), and those edges are still read', () => {
  // cli/command-list.ts loads every command's definition for any command's --help; the
  // definitions stay cheap by importing what the command runs with import('...') in the
  // handler. The floors above must hold for those imports too, so the graph must see them.
  const loaded: Record<string, string> = {
    'cli/commands/compare.ts': 'analysis/compare/compare-threads.ts',
    'cli/commands/coordinator.ts': 'coordinator/server.ts',
    'cli/commands/agent.ts': 'agent/agent.ts',
    'cli/commands/harness.ts': 'agent/harness/harness-main.ts',
    'cli/commands/status.ts': 'cli/control-client.ts',
  };
  for (const [command, target] of Object.entries(loaded)) assert.ok(graph.get(command)?.includes(target), `${command} -> ${target} is not in the import graph`);
});

test('no module imports itself through others: the import graph has no circle', () => {
  // Tarjan's strongly connected components; a component of more than one module is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(circles, []);
});

test('every module is imported by another, or is an entry point', () => {
  // shared/background.ts landed before the code that uses it (issue 18's background promises,
  // in progress); drop it from this list once run-dispatch, agent or server imports it.
  // bin/ts-hooks.mjs is the module hooks' own entry on Node's hooks thread (bin/ts-register.mjs registers it by URL).
  const entries = new Set(['bin/benchfleet.js', 'bin/ts-hooks.mjs', 'kernels/build/asc-batch.mjs', 'web/src/dashboard-main.ts', 'web/src/report-main.ts', 'shared/background.ts']);
  const imported = new Set([...graph.values()].flat());
  const unused = [...graph.keys()].filter((f) => !imported.has(f) && !entries.has(f)).sort();
  assert.deepEqual(unused, []);
});
