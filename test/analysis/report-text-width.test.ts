// The report as text keeps to the terminal it is shown on: replayed through a VT100 subset at
// 60, 80 and 160 columns, no line is wider than the terminal and every word of the unfitted
// text is still there; `--arm all` says a note that holds for every arm once; a followed run's
// markdown report shown on a terminal has no heading marks and fits too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATIVE_ARM } from '../../shared/arms.ts';
import { buildReport, renderReport, renderReports } from '../../analysis/report/report.ts';
import { reportsForEveryArm } from '../../analysis/report/report-arms.ts';
import { loadResults } from '../../analysis/raw/result-folders.ts';
import { markdownAsText } from '../../cli/markdown-text.ts';
import { toJsonl } from '../helpers/raw-records.ts';
import { syntheticRun } from '../helpers/synthetic-raw.ts';
import { replayOnTerminal } from '../helpers/terminal-screen.ts';

const ARMS = [NATIVE_ARM, 'taskpool-4-batched', 'taskpool-8-batched'];
const KERNELS = ['aes-cbc-decrypt', 'sha256', 'crc32'];

/** Two policies of three kernels, the pages file ending in a line that is not JSON (a note in every arm's report). */
async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bf-report-width-'));
  await writeFile(join(dir, 'pages.jsonl'), toJsonl(syntheticRun({ seed: 3, machine: 'ryzen', policy: 'pages', kernels: KERNELS, arms: ARMS, rounds: 3, repeats: 2 })));
  await appendFile(join(dir, 'pages.jsonl'), 'this line is not JSON\n');
  await writeFile(join(dir, 'whole.jsonl'), toJsonl(syntheticRun({ seed: 4, machine: 'ryzen', policy: 'whole', kernels: KERNELS, arms: ARMS, rounds: 3, repeats: 2 })));
  return dir;
}

const words = (t: string): string[] => t.split(/\s+/).map((w) => w.replace(/:$/, '')).filter((w) => w !== '' && !/^-+$/.test(w));

function assertFits(text: string, whole: string, columns: number): void {
  const shown = replayOnTerminal(text, columns, 1000).lines;
  for (const line of shown) assert.ok([...line].length <= columns, `${[...line].length} > ${columns}: ${line}`);
  assert.equal(shown.length, text.trimEnd().split('\n').length, `the terminal wrapped a line itself at ${columns} columns`);
  const got = new Set(words(shown.join('\n')));
  assert.deepEqual(words(whole).filter((w) => !got.has(w)), [], `words lost at ${columns} columns`);
}

test('report text with intervals keeps to 60, 80 and 160 columns with every word whole', async (t) => {
  const dir = await folder();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const report = await buildReport([dir]);
  assert.equal(report.notes.length, 1, report.notes.join('\n'));
  const whole = renderReport(report, 'text', { intervals: true });
  assert.ok(whole.split('\n').some((l) => l.length > 160), 'the unfitted text has a line wider than 160 columns');
  for (const columns of [60, 80, 160]) assertFits(renderReport(report, 'text', { intervals: true, columns }), whole, columns);
});

test('report --arm all in text and markdown says a note that holds for every arm once', async (t) => {
  const dir = await folder();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const reports = reportsForEveryArm(await loadResults([dir]));
  assert.equal(reports.length, 2);
  const note = reports[0]?.notes[0] ?? '';
  assert.ok(note !== '' && reports.every((r) => r.notes.includes(note)));
  for (const format of ['text', 'markdown'] as const) {
    const text = renderReports(reports, format);
    assert.equal(text.split(note).length - 1, 1, `${format}: the note ${reports.length} times`);
    assert.equal(text.split('Paired median speedup').length - 1, 2, `${format}: a table per arm`);
  }
});

test("a followed run's markdown report on a terminal has no heading marks and keeps to 60, 80 and 160 columns", async (t) => {
  const dir = await folder();
  t.after(() => rm(dir, { recursive: true, force: true }));
  const markdown = `${renderReport(await buildReport([dir]), 'markdown', { intervals: true })}\n## Machine starts\n\n- ryzen: started 2026-12-03T10:09:27.000Z (completed)\n`;
  const whole = markdownAsText(markdown);
  assert.equal(whole.includes('##'), false);
  assert.match(whole, /\nMachine starts\n/);
  for (const columns of [60, 80, 160]) assertFits(markdownAsText(markdown, columns), whole, columns);
});
