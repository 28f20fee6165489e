// Help text in a user's terms: no script of the study nobody has seen (matched.sh), and example
// run ids in the format the coordinator really gives (coordinator/run-id.ts), not made-up
// ones like r-8f2k. Every command's --help from the CLI's own main(), in this process (a child
// per command costs seconds each on a loaded machine; main is the same code either way).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commands } from '../../cli/command-list.ts';
import { main } from '../../cli/main.ts';
import { newRunId } from '../../coordinator/run-id.ts';

/** main(argv) with everything it writes to stdout (yargs prints help through console.log). */
async function helpOf(argv: string[]): Promise<{ code: number; stdout: string }> {
  const write = process.stdout.write.bind(process.stdout);
  let stdout = '';
  process.stdout.write = (chunk: string | Uint8Array): boolean => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  try {
    return { code: await main(argv), stdout };
  } finally {
    process.stdout.write = write;
  }
}

/** Every subcommand of the CLI's own list; `kernel` has its help on `kernel run`. */
const COMMANDS = commands.map((c) => String(c.command).split(' ')[0] ?? '').map((name) => (name === 'kernel' ? 'kernel run' : name));
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-z]{6}\b/g;
/** What a made-up id looks like: r- and a few letters or digits. */
const FAKE_ID = /\br-[0-9a-z]{1,6}\b/;

describe('every command\'s --help speaks in the user\'s terms', () => {
  it('example run ids have the coordinator\'s own format', () => {
    assert.match(newRunId(new Date('2026-11-30T03:15:02Z')), /^20261130-031502-[0-9a-z]{6}$/);
  });
  for (const command of COMMANDS) {
    it(`${command} --help names no unexplained script and no made-up run id`, async () => {
      const result = await helpOf([...command.split(' '), '--help']);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /--help/, 'the help text itself was captured');
      assert.doesNotMatch(result.stdout, /matched\.sh/);
      assert.doesNotMatch(result.stdout, FAKE_ID);
      if (command === 'compare' || command === 'report') assert.ok((result.stdout.match(RUN_ID) ?? []).length >= 1, `${command} shows a real-looking run id`);
    });
  }
});
