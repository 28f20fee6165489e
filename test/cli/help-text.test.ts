// Help text in a user's terms: no script of the study nobody has seen (matched.sh), and example
// run ids in the format the coordinator really gives (store/run-id.ts), not made-up
// ones like r-8f2k. Every command's --help from the CLI's own main(), in this process (a child
// per command costs seconds each on a loaded machine; main is the same code either way).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commands } from '../../cli/command-list.ts';
import { main } from '../../cli/main.ts';
import { newRunId } from '../../store/run-id.ts';

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
const COMMANDS = commands.map((c) => String(c.command).split(' ')[0] ?? '').map((name) => (name === 'kernel' ? 'kernel run' : name === 'agents' ? 'agents forget' : name));
const RUN_ID = /\b\d{8}-\d{6}-[0-9a-z]{6}\b/g;
/** What a made-up id looks like: r- and a few letters or digits. */
const FAKE_ID = /\br-[0-9a-z]{1,6}\b/;

describe('examples read whole', () => {
  it('report\'s CSV example is one unbroken line, compare\'s long gate example breaks only before an option', async () => {
    const report = (await helpOf(['report', '--help'])).stdout;
    assert.match(report, /\n {2}# a coordinator run folder as CSV\n {2}benchfleet report \/srv\/benchfleet\/runs\/20261130-031502-k3v9x2 --arm taskpool-4-batched --csv\n/);
    const compare = (await helpOf(['compare', '--help'])).stdout;
    assert.match(compare, /\n {2}benchfleet compare 20261130-031502-k3v9x2 20261130-043318-7qz1ha 20261130-055140-m2d8xe \\\n {4}--data \/srv\/benchfleet --fail-on [a-z -]+\n/);
  });
});

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
      assert.doesNotMatch(result.stdout, /\[default: \[\]\]|\[required\] \[default/, 'no empty-list default');
      // Each example: a "# what it does" line, then the command, continued with " \\" and never cut inside an option.
      const examples = result.stdout.split('\nExamples:\n')[1]?.split('\n\n')[0] ?? '';
      for (const line of examples.split('\n').filter(Boolean)) {
        assert.ok(line.length <= 100, `an example line of ${line.length} characters: ${line}`);
        assert.match(line, /^ {2}(# |[^ #]| {2}--)/, `an example line starts with its comment, the command, or a continued option: ${line}`);
      }
    });
  }
});
