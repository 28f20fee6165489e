// The progress display on a terminal keeps its bars whole when other lines arrive (the demo's
// agents print while the bars are drawn): each line lands above the bars, which are drawn
// again below it. Checked on the screen a terminal would show, by applying the display's
// escape sequences (cursor up, erase below, erase line) to a grid of lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { formatDuration, ProgressDisplay } from '../../cli/progress-display.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';

/** The lines a terminal shows after `text`, for the three sequences the display uses. */
function screen(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  // eslint-disable-next-line no-control-regex -- the escape character is what is being parsed
  for (const part of text.split(/(\x1b\[\d*[AJK])/)) {
    // eslint-disable-next-line no-control-regex -- as above
    const escape = /^\x1b\[(\d*)([AJK])$/.exec(part);
    if (escape) {
      if (escape[2] === 'A') row = Math.max(0, row - Number(escape[1] || 1));
      else {
        // J erases the cursor's line and everything below it; K the cursor's line.
        if (escape[2] === 'J') lines.splice(row + 1);
        lines[row] = '';
      }
      continue;
    }
    for (const [i, piece] of part.split('\n').entries()) {
      if (i > 0) {
        row++;
        if (lines[row] === undefined) lines[row] = '';
      }
      lines[row] = (lines[row] ?? '') + piece;
    }
  }
  return lines.filter((l, i) => l !== '' || i < row);
}

function collector(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => text };
}

function run(a: number, b: number, waitingB: string | null = null): RunSummary {
  const machine = (done: number, waiting: string | null) => ({ state: 'running' as const, done, total: 10, lines: {}, message: null, waiting });
  return { runId: 'r', state: 'running', createdAt: '', planSha256: '', machines: { 'local-a': machine(a, null), 'local-b': machine(b, waitingB) } };
}

test('on a terminal, lines printed while bars are shown land above the bars, which stay whole below them', () => {
  const out = collector();
  let now = 0;
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => now });
  display.printAbove('coordinator on http://127.0.0.1:1');
  display.render(run(0, 0, 'the timing lock is held by harness pid 7'));
  display.printAbove('[agent local-a] run r: started');
  now = 10_000;
  display.render(run(2, 0, 'the timing lock is held by harness pid 7'));
  display.printAbove('[agent local-b] connected');
  now = 20_000;
  display.render(run(4, 1));
  const shown = screen(out.text());
  assert.deepEqual(shown.slice(0, 3), ['coordinator on http://127.0.0.1:1', '[agent local-a] run r: started', '[agent local-b] connected']);
  assert.equal(shown.length, 5, shown.join('\n'));
  assert.match(shown[3] ?? '', /^ {2}local-a +\[#{10}-{14}\] {2}40% 4\/10 running \(ETA 30s\)$/);
  assert.match(shown[4] ?? '', /^ {2}local-b +\[#{2}-{22}\] {2}10% 1\/10 running$/);
});

test('a waiting machine shows why on its bar, and no ETA until it measures', () => {
  const out = collector();
  const display = new ProgressDisplay(out.stream, { tty: true, now: () => 0 });
  display.render(run(0, 0, 'the timing lock is held by harness pid 7'));
  assert.match(screen(out.text())[1] ?? '', /local-b .* 0\/10 running \(waiting: the timing lock is held by harness pid 7\)$/);
});

test('off a terminal the display prints plain lines: one per change of state, waiting reason or tenth of progress', () => {
  const out = collector();
  let now = 0;
  const display = new ProgressDisplay(out.stream, { tty: false, now: () => now });
  display.render(run(0, 0, 'load 3.1 above 1'));
  display.render(run(0, 0, 'load 3.1 above 1'));
  display.printAbove('[agent local-a] started');
  now = 5000;
  display.render(run(1, 0));
  now = 6000;
  display.render(run(1, 0));
  assert.equal(out.text(), [
    'local-a: running 0/10 samples',
    'local-b: running 0/10 samples (waiting: load 3.1 above 1)',
    '[agent local-a] started',
    'local-a: running 1/10 samples (ETA 45s)',
    'local-b: running 0/10 samples',
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
