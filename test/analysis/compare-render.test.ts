// How a comparison reads: it starts with its answer (a row per cell and one line for the whole,
// naming the geometric mean), and text for a terminal keeps to the terminal's width, replayed
// through a VT100 subset at 60, 80 and 160 columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildComparison, type RunInput } from '../../analysis/compare/compare.ts';
import { renderComparison } from '../../analysis/compare/compare-render.ts';
import { summarizeComparison } from '../../analysis/compare/compare-summary.ts';
import { parseRawLines } from '../../analysis/raw/raw-reader.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';
import { replayOnTerminal } from '../helpers/terminal-screen.ts';

// Three runs of two kernels on one machine, policy and arm, each with a true speedup of 5.
function threeRuns(): RunInput[] {
  return [1, 2, 3].map((seed) => ({
    run: `2026120${seed}-101500-abcdef`,
    files: [{ folderMachine: 'box', stem: 'pages', parsed: parseRawLines(syntheticRun({ seed, kernels: ['sha256', 'xxhash32'], arms: ['native', 'taskpool-8-batched'], rounds: 7, repeats: 4 })) }],
  }));
}

test('the summary has a row per cell with the geometric mean over runs, the run medians and the verdict, and one line for the whole', () => {
  const c = buildComparison(threeRuns(), { resamples: 200 });
  assert.equal(c.groups.length, 2, JSON.stringify(c.notes));
  const s = summarizeComparison(c);
  // Only the kernel differs between the cells: machine, policy and arm are said once.
  assert.equal(s.title, 'Summary: ryzen, pages, taskpool-8-batched (speedup of the arm over native; more is faster)');
  assert.deepEqual(s.header, ['kernel', 'geometric mean of runs [95%]', 'run medians', 'verdict']);
  for (const [i, g] of c.groups.entries()) {
    const a = g.acrossRuns;
    assert.ok(a);
    assert.deepEqual(s.rows[i], [g.kernel, `${a.median.toFixed(2)}x [${a.lo.toFixed(2)}-${a.hi.toFixed(2)}]`, `${g.spread.min.toFixed(2)}x to ${g.spread.max.toFixed(2)}x`, g.verdict.replace(/-/g, ' ')]);
  }
  const [sha, xx] = c.groups.map((g) => g.acrossRuns?.median ?? 0);
  assert.ok(sha !== undefined && xx !== undefined);
  assert.ok(Math.abs(sha / 5 - 1) < 0.05 && Math.abs(xx / 5 - 1) < 0.05, `${sha} ${xx}`);
  const verdicts = new Map<string, number>();
  for (const g of c.groups) verdicts.set(g.verdict.replace(/-/g, ' '), (verdicts.get(g.verdict.replace(/-/g, ' ')) ?? 0) + 1);
  assert.equal(s.total, `2 cells over 3 runs: ${[...verdicts].map(([v, n]) => `${n} ${v}`).join(', ')}; geometric mean over the cells ${Math.sqrt(sha * xx).toFixed(2)}x`);
});

test('compare text and markdown start with the summary, after any notes', () => {
  const c = buildComparison(threeRuns(), { resamples: 200 });
  const s = summarizeComparison(c);
  const text = renderComparison(c, 'text').split('\n');
  assert.equal(text[0], s.title);
  assert.match(text[1] ?? '', /^ {2}kernel +geometric mean of runs \[95%\] +run medians +verdict$/);
  assert.match(text[3] ?? '', /^ {2}sha256 +\d\.\d\dx \[/);
  assert.equal(text[5], s.total);
  const markdown = renderComparison(c, 'markdown').split('\n');
  assert.equal(markdown[0], `### ${s.title}`);
  assert.equal(markdown[2], '| kernel | geometric mean of runs [95%] | run medians | verdict |');
  assert.equal(markdown[7], `**${s.total}**`);
});

for (const columns of [60, 80, 160]) {
  test(`compare text on a ${columns}-column terminal has no line wider than it and keeps every word whole`, () => {
    const c = buildComparison(threeRuns(), { resamples: 200 });
    const text = renderComparison(c, 'text', columns);
    const shown = replayOnTerminal(text, columns, 1000).lines;
    for (const line of shown) assert.ok([...line].length <= columns, `${[...line].length} > ${columns}: ${line}`);
    // What is wrapped is every word of the unwrapped text, in order: nothing cut, nothing lost.
    const words = (t: string): string[] => t.split(/\s+/).map((w) => w.replace(/:$/, '')).filter((w) => w !== '' && !/^-+$/.test(w));
    const whole = words(renderComparison(c, 'text'));
    const fitted = words(shown.join('\n'));
    assert.deepEqual(whole.filter((w) => !fitted.includes(w)), [], `missing at ${columns} columns`);
    // The screen took as many rows as the text has lines: the terminal wrapped nothing itself.
    assert.equal(shown.length, text.trimEnd().split('\n').length);
  });
}
