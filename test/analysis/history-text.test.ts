// `history` text fits the terminal it is shown on: replayed through a VT100 subset at 60, 80 and
// 160 columns, no line is wider than the terminal and every word of the unfitted text is still
// there (columns of a series table that do not fit follow each run as "header: value" lines). `--text` asks for it by name, as
// `report --text` and `compare --text` do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderHistory } from '../../analysis/history/history-render.ts';
import { DEFAULT_DETECTION } from '../../analysis/history/history-types.ts';
import { readHistory } from '../../store/run-index/read-history.ts';
import { RunIndex } from '../../store/run-index/run-index.ts';
import { runCli } from '../helpers/run-cli.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { replayOnTerminal } from '../helpers/terminal-screen.ts';

// Seven nightly runs of two kernels; the newest 30% slower, on the run where Node changed.
async function nightlyRuns(dir: string): Promise<void> {
  for (let i = 0; i < 7; i++) {
    await writeFinishedRun(dir, {
      planName: 'nightly', machines: ['m1'], policies: ['pages'], kernels: ['sha256', 'crc32'], arms: ['native', 'taskpool-2-batched'], seed: i + 1,
      createdAt: `2026-11-0${i + 1}T02:00:00.000Z`,
      shift: i === 6 ? Math.log(0.7) : 0,
      environment: { node: i === 6 ? '22.1.0' : '20.20.2' },
    });
  }
}

const words = (t: string): string[] => t.split(/\s+/).map((w) => w.replace(/:$/, '')).filter((w) => w !== '' && !/^-+$/.test(w));

test('history text keeps to 60, 80 and 160 columns with every word whole, and --text is its name', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-history-text-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await nightlyRuns(dir);
  const index = await RunIndex.open(dir);
  let whole: string;
  const fitted = new Map<number, string>();
  try {
    const view = readHistory(index, { plan: 'nightly' }, DEFAULT_DETECTION);
    whole = renderHistory(view, 'text');
    for (const columns of [60, 80, 160]) fitted.set(columns, renderHistory(view, 'text', columns));
  } finally {
    index.close();
  }
  assert.match(whole, /REGRESSION -\d+\.\d%/);
  for (const [columns, text] of fitted) {
    const shown = replayOnTerminal(text, columns, 1000).lines;
    for (const line of shown) assert.ok([...line].length <= columns, `${[...line].length} > ${columns}: ${line}`);
    assert.equal(shown.length, text.trimEnd().split('\n').length, `the terminal wrapped a line itself at ${columns} columns`);
    const got = new Set(words(shown.join('\n')));
    assert.deepEqual(words(whole).filter((w) => !got.has(w)), [], `words lost at ${columns} columns`);
  }
  // At 160 columns each series is still one aligned table: a header row, a rule and 7 runs.
  assert.equal(fitted.get(160)?.split('\n').filter((l) => /^ {2}2026/.test(l) || /^ {2}\S+-\d{6}-/.test(l)).length, 14);

  const text = await runCli(['history', '--data', dir, '--plan', 'nightly', '--text']);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, whole);
  const both = await runCli(['history', '--data', dir, '--plan', 'nightly', '--text', '--csv']);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /choose one output format; got --csv and --text/);
});
