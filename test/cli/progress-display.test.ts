// The progress display on a terminal keeps its bars whole when other lines arrive (the demo's
// agents print while the bars are drawn): each line lands above the bars, which are drawn
// again below it. Checked on the screen a terminal would show, by replaying the output through
// a VT100 subset (test/helpers/terminal-screen.ts) at the widths people use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describeLockWait } from '../../agent/harness/timing-lock.ts';
import { formatDuration, ProgressDisplay } from '../../cli/progress-display.ts';
import { shortWaitReason } from '../../shared/wait-reason.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import { replayOnTerminal, replayWithResizes } from '../helpers/terminal-screen.ts';
import { textStream } from '../helpers/text-stream.ts';

const screen = (text: string, columns = 100): string[] => replayOnTerminal(text, columns).lines;

function run(a: number, b: number, waitingB: string | null = null): RunSummary {
  const machine = (done: number, waiting: string | null) => ({ state: 'running' as const, done, total: 10, lines: {}, message: null, waiting });
  return { runId: 'r', state: 'running', createdAt: '', planSha256: '', machines: { 'local-a': machine(a, null), 'local-b': machine(b, waitingB) } };
}

test('on a terminal, lines printed while bars are shown land above the bars, which stay whole below them', () => {
  const out = textStream();
  let now = 0;
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => now, columns: 100 });
  display.printAbove('coordinator on http://127.0.0.1:1');
  display.render(run(0, 0, 'the timing lock is held by harness pid 7'));
  display.printAbove('[agent local-a] run r: started');
  now = 10_000;
  display.render(run(2, 0, 'the timing lock is held by harness pid 7'));
  display.printAbove('[agent local-b] connected');
  now = 20_000;
  display.render(run(4, 1));
  now = 30_000;
  display.render(run(6, 1));
  const shown = screen(out.text());
  assert.deepEqual(shown.slice(0, 3), ['coordinator on http://127.0.0.1:1', '[agent local-a] run r: started', '[agent local-b] connected']);
  assert.equal(shown.length, 5, shown.join('\n'));
  // local-a's rate runs from its first sample seen done (2 at 10 s): 4 more in 20 s, 4 left.
  assert.equal(shown[3], '  local-a [##############----------]  60% 6/10 running, ETA 20s');
  assert.equal(shown[4], '  local-b [##----------------------]  10% 1/10 running');
});

test('a waiting machine shows why on its bar in a few words, and no ETA until it measures', () => {
  const out = textStream();
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => 0, columns: 120 });
  display.render(run(0, 0, 'the timing lock is held by harness pid 7'));
  assert.equal(screen(out.text(), 120)[1], '  local-b [------------------------]   0% 0/10 waiting: the timing lock is held by harness pid 7');
});

test('no ETA from fewer than three samples measured, and none from the time before the first sample', () => {
  const out = textStream();
  let now = 0;
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => now, columns: 100 });
  const etaOf = (): string => screen(out.text()).at(-2)?.split(', ')[1] ?? 'none';
  // The harness takes 600 s to start (warm-up): a rate from 0 at 0 s would say 23 minutes.
  display.render(run(0, 0));
  now = 600_000;
  display.render(run(1, 0));
  assert.equal(etaOf(), 'none');
  for (const [t, done] of [[601, 2], [602, 3]] as const) {
    now = t * 1000;
    display.render(run(done, 0));
    assert.equal(etaOf(), 'none', `at ${done} samples`);
  }
  now = 603_000;
  display.render(run(4, 0));
  assert.equal(etaOf(), 'ETA 6s');
});

// What the harness says while another harness on the machine holds the timing lock, word for
// word: the demo's local-b waits so while local-a measures.
const LOCK_WAIT = describeLockWait(
  {
    file: '/tmp/benchfleet-timing.lock',
    holder: { pid: 4242, host: hostname(), startedAt: '2026-12-01T10:15:02.123Z', what: 'harness --plan /home/someone/.benchfleet/demo/agents/local-a/runs/20261201-101500-ab12cd/plan.json' },
    user: 'user someone',
    state: 'held',
    limitSeconds: 3600,
  },
  true,
);

function demoRun(a: number, b: number, waitingB: string | null): RunSummary {
  const machine = (done: number, total: number, waiting: string | null) => ({ state: 'running' as const, done, total, lines: {}, message: null, waiting });
  return { runId: 'r', state: 'running', createdAt: '', planSha256: '', machines: { 'local-a': machine(a, 180, null), 'local-b': machine(b, 180, waitingB) } };
}

// The bars of the demo at each width: the bar narrows (then goes, leaving its percentage)
// before the ETA or the reason is cut.
const DEMO_BARS: Record<number, [string, string]> = {
  60: ['  local-a  83% 150/180 running, ETA 5s', '  local-b   0%   0/180 waiting for local-a: timing lock'],
  80: [`  local-a [${'#'.repeat(18)}---]  83% 150/180 running, ETA 5s`, `  local-b [${'-'.repeat(21)}]   0%   0/180 waiting for local-a: timing lock`],
  160: [`  local-a [${'#'.repeat(20)}----]  83% 150/180 running, ETA 5s`, `  local-b [${'-'.repeat(24)}]   0%   0/180 waiting for local-a: timing lock`],
};

for (const columns of [60, 80, 160]) {
  test(`replayed on a ${columns}-column terminal, the demo's bars keep the ETA and a short waiting reason, two rows with no stale copies`, () => {
    const out = textStream();
    let now = 0;
    const display = new ProgressDisplay(out.stream, { tty: true, now: () => now, columns });
    const above: string[] = [];
    for (let done = 0; done <= 150; done += 6) {
      now += 1000;
      display.render(demoRun(done, 0, LOCK_WAIT));
      if (done % 60 === 0) {
        const line = `[agent local-a] run r: ${done} samples, a status line long enough to wrap on a narrow terminal ${'.'.repeat(columns)}`;
        above.push(line);
        display.printAbove(line);
      }
    }
    const shown = screen(out.text(), columns);
    for (const line of shown) assert.ok([...line].length <= columns, `a line of ${[...line].length} characters on ${columns} columns: ${line}`);
    // The lines printed above wrap (each is wider than the terminal) and are kept whole, in order.
    const aboveRows = above.flatMap((l) => (l.match(new RegExp(`.{1,${columns}}`, 'g')) ?? []).map((row) => row.trimEnd()));
    assert.deepEqual(shown.slice(0, aboveRows.length), aboveRows);
    assert.deepEqual(shown.slice(aboveRows.length), DEMO_BARS[columns]);
  });
}

test('a terminal narrowed from 120 to 70 columns mid-run is redrawn at once: the reflowed bars leave no stale rows, and the lines above stay whole', () => {
  const out = textStream();
  const tty = out.stream as NodeJS.WriteStream & { columns: number };
  tty.columns = 120;
  let now = 0;
  // No `columns` option: the display reads the stream's width, as on a real terminal.
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => now });
  const above = ['[agent local-a] run r: started measuring (whole, pages, checkpoint)', `[agent local-b] run r: ${'a long line '.repeat(8)}`];
  display.printAbove(above[0] as string);
  for (let done = 0; done <= 60; done += 6) {
    now += 1000;
    display.render(demoRun(done, 0, LOCK_WAIT));
  }
  display.printAbove(above[1] as string);
  const before = out.text().length;
  // The terminal reflows first (the bars, 82 characters, now take two rows each), then says so.
  tty.columns = 70;
  tty.emit('resize');
  const afterResize = out.text().length;
  for (let done = 66; done <= 150; done += 6) {
    now += 1000;
    display.render(demoRun(done, 0, LOCK_WAIT));
  }
  const replay = (upTo: number): string[] => replayWithResizes([out.text().slice(0, before), { columns: 70 }, out.text().slice(before, upTo)], 120).lines;
  const shown = replay(out.text().length);
  const aboveRows = above.flatMap((l) => (l.match(/.{1,70}/g) ?? []).map((row) => row.trimEnd()));
  assert.deepEqual(shown, [...aboveRows, `  local-a [${'#'.repeat(9)}--]  83% 150/180 running, ETA 5s`, `  local-b [${'-'.repeat(11)}]   0%   0/180 waiting for local-a: timing lock`], shown.join('\n'));
  // Redrawn at the resize itself, not at the next render: the screen then had the lines above
  // and two bars already, each within 70 columns.
  const atResize = replay(afterResize);
  assert.deepEqual(atResize.slice(0, aboveRows.length), aboveRows, atResize.join('\n'));
  assert.equal(atResize.length, aboveRows.length + 2, atResize.join('\n'));
  assert.deepEqual(atResize.slice(-2).map((l) => l.slice(0, 9)), ['  local-a', '  local-b'], atResize.join('\n'));
  display.finish();
  assert.equal(tty.listenerCount('resize'), 0, 'the display stops listening when it is done');
});

test('each resize of the terminal (120 -> 70 -> 40 -> 160 columns) redraws the bars at once to fit the new width', () => {
  const out = textStream();
  const tty = out.stream as NodeJS.WriteStream & { columns: number };
  tty.columns = 120;
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => 0 });
  display.render(demoRun(6, 0, LOCK_WAIT));
  const parts: (string | { columns: number })[] = [];
  let written = 0;
  const EXPECTED: Record<number, [string, string]> = {
    70: [`  local-a [${'-'.repeat(13)}]   3% 6/180 running`, `  local-b [${'-'.repeat(13)}]   0% 0/180 waiting for local-a: timing lock`],
    40: ['  local-a   3% 6/180 running', '  local-b   0% 0/180 waiting for local…'],
    160: [`  local-a [#${'-'.repeat(23)}]   3% 6/180 running`, `  local-b [${'-'.repeat(24)}]   0% 0/180 waiting for local-a: timing lock`],
  };
  for (const columns of [70, 40, 160]) {
    parts.push(out.text().slice(written), { columns });
    written = out.text().length;
    tty.columns = columns;
    tty.emit('resize');
    const shown = replayWithResizes([...parts, out.text().slice(written)], 120).lines;
    assert.deepEqual(shown, EXPECTED[columns], `at ${columns} columns:\n${shown.join('\n')}`);
  }
});

test('off a terminal a waiting machine gives the short reason, without the pid or the plan path of the harness it waits for', () => {
  const out = textStream();
  const display = new ProgressDisplay(out.stream, { tty: false, now: () => 0 });
  display.render(demoRun(6, 0, LOCK_WAIT));
  display.render(demoRun(6, 0, LOCK_WAIT));
  assert.equal(out.text(), ['local-a: running 6/180 samples', 'local-b: running 0/180 samples (waiting for local-a: timing lock)', ''].join('\n'));
});

test('a wait reason reads as who is waited for and on what', () => {
  const machines = ['local-a', 'local-b'];
  assert.equal(shortWaitReason(LOCK_WAIT, 'local-b', machines), 'waiting for local-a: timing lock');
  // A holder that is no machine of the run (another user's harness) is named by its pid.
  assert.equal(shortWaitReason(LOCK_WAIT.replace('local-a', 'someone-else'), 'local-b', machines), 'waiting for pid 4242: timing lock');
  // A machine named in its own wait (its state folder in the path) is not what it waits for.
  assert.equal(shortWaitReason(LOCK_WAIT, 'local-a', ['local-a']), 'waiting for pid 4242: timing lock');
  assert.equal(shortWaitReason('waiting for the 1-minute load average (2.31) to fall below 1 (at most 600 s)', 'a', ['a']), 'waiting: load 2.31 > 1');
  assert.equal(shortWaitReason('something new', 'a', ['a']), 'waiting: something new');
});

test('a machine that has not said how many samples it plans shows no 0/0 count: it is starting, or queued', () => {
  const out = textStream();
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => 0, columns: 80 });
  const m = (state: 'assigned' | 'queued') => ({ state, done: 0, total: 0, lines: {}, message: null, ...(state === 'queued' ? { queue: 1 } : {}) });
  display.render({ runId: 'r', state: 'running', createdAt: '', planSha256: '', machines: { a: m('assigned'), b: m('queued') } });
  assert.deepEqual(screen(out.text(), 80), [`  a [${'-'.repeat(24)}]   0%  starting`, `  b [${'-'.repeat(24)}]   0%  queued, next in line`]);
});

test('off a terminal the display prints plain lines: one per change of state, waiting reason or tenth of progress', () => {
  const out = textStream();
  let now = 0;
  const display = new ProgressDisplay(out.stream, { tty: false, now: () => now });
  display.render(run(0, 0, 'load 3.1 above 1'));
  display.render(run(0, 0, 'load 3.1 above 1'));
  display.printAbove('[agent local-a] started');
  now = 5000;
  display.render(run(1, 0));
  now = 6000;
  display.render(run(1, 0));
  now = 11_000;
  display.render(run(4, 0));
  assert.equal(out.text(), [
    'local-a: running 0/10 samples',
    'local-b: running 0/10 samples (waiting: load 3.1 above 1)',
    '[agent local-a] started',
    'local-a: running 1/10 samples',
    'local-b: running 0/10 samples',
    // 3 samples in the 6 s since the first: 2 s each, 6 left.
    'local-a: running 4/10 samples (ETA 12s)',
    '',
  ].join('\n'));
  assert.equal(out.text().includes('\x1b'), false, 'escape sequences off a terminal');
});

test('durations read as seconds, minutes and hours', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(59.4), '59s');
  assert.equal(formatDuration(75), '1m15s');
  assert.equal(formatDuration(3700), '1h01m');
});

test('a delivering run says how many raw files finalization has summarized, once per tenth off a terminal and as a line below the bars on one', () => {
  const delivering = (done: number, total: number): RunSummary => {
    const machine = { state: 'completed' as const, done: 10, total: 10, lines: {}, message: null };
    return { runId: 'r', state: 'delivering', createdAt: '', planSha256: '', machines: { 'local-a': machine }, summarized: { done, total } };
  };
  const plain = textStream();
  const display = new ProgressDisplay(plain.stream, { tty: false, now: () => 0 });
  for (const done of [0, 3, 4, 40, 80]) display.render(delivering(done, 80));
  assert.equal(plain.text(), ['local-a: completed 10/10 samples', 'r: summarized 0 of 80 raw files', 'r: summarized 40 of 80 raw files', 'r: summarized 80 of 80 raw files', ''].join('\n'));
  const term = textStream();
  const bars = new ProgressDisplay(term.stream, { tty: true, columns: 100, now: () => 0 });
  bars.render(delivering(1, 2));
  bars.render(delivering(2, 2));
  assert.deepEqual(screen(term.text()).filter((l) => l.trim() !== '').map((l) => l.trim()).slice(-1), ['r: summarized 2 of 2 raw files']);
});
