// Ctrl-C in the middle of `npm start`, as a person presses it: the demo runs on a real pseudo
// terminal (util-linux `script`) 70 columns wide, the test types ^C once the bars move, and what
// the terminal then shows is replayed through a VT100 subset (test/helpers/terminal-screen.ts).
// The bars must stop where they were, the agents' last lines come below them, and the last line
// on the screen says what became of the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../helpers/processes.ts';
import { replayOnTerminal } from '../helpers/terminal-screen.ts';

const SCRIPT = '/usr/bin/script';
const COLUMNS = 70;

test('Ctrl-C mid-run on a 70-column terminal leaves the bars as they were and the stop line last', { timeout: 180_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'benchfleet-demo-interrupt-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;
  const command = `stty cols ${COLUMNS} rows 50; exec ${quote(process.execPath)} ${quote(BIN)} demo --data ${quote(join(dir, 'demo'))} --no-keep-open`;
  const child = spawn(SCRIPT, ['-qfec', command, '/dev/null'], { env: { ...process.env, BENCHFLEET_LOCK_FILE: join(dir, 'timing.lock') }, stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let output = '';
  let moving: () => void = () => undefined;
  const bars = new Promise<void>((resolve) => (moving = resolve));
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    // A machine's bar with samples done: the run is under way.
    if (/\] +\d+% +[1-9]\d*\/\d+ running/.test(output)) moving();
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  await Promise.race([bars, exited]);
  assert.match(output, /running/, `the demo ended before its bars moved:\n${output}`);
  child.stdin.write('\x03');
  const code = await exited;
  const shown = replayOnTerminal(output.replaceAll('^C', ''), COLUMNS, 50).lines;
  assert.equal(code, 130, shown.join('\n'));
  for (const line of shown) assert.ok([...line].length <= COLUMNS, line);
  const stopping = shown.lastIndexOf('stopping the demo: agents, then the coordinator');
  assert.ok(stopping > 0, shown.join('\n'));
  const after = shown.slice(stopping + 1).filter((l) => l.trim() !== '');
  // No bar below the stop line: the frame was left where it was.
  assert.deepEqual(after.filter((l) => /\d+% /.test(l)), [], shown.join('\n'));
  // The bars above it are whole: one row per machine, local-a then local-b.
  const frame = shown.slice(0, stopping).filter((l) => /^ {2}local-[ab] /.test(l));
  assert.deepEqual(frame.map((l) => l.slice(2, 9)), ['local-a', 'local-b'], shown.join('\n'));
  // The stop line is the last thing written, and what the screen ends with (wrapped at 70).
  const stopLine = /\r\n(stopped the demo; run \S+ is kept in \S+, and the next `npm start` resumes it before its own run\.)\r\n$/.exec(output)?.[1];
  assert.ok(stopLine !== undefined, output);
  assert.equal(after.at(-1), stopLine.slice(-(stopLine.length % COLUMNS || COLUMNS)), shown.join('\n'));
});
