// The README as a new user follows it: `benchfleet` is not on PATH after `npm ci`, so every
// command it shows runs as `npx benchfleet …` and names a real subcommand; and the Mac agent
// has its section, with the launchctl commands of today's macOS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { commands } from '../../cli/command-list.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** The CLI's own subcommand names (the first word of each command's yargs `command`). */
const SUBCOMMANDS = new Set(commands.map((c) => String(c.command).split(' ')[0]));

test('every benchfleet command in the README\'s code blocks runs through npx and names a real subcommand', () => {
  const blocks = [...readme.matchAll(/```(?:sh)?\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  let found = 0;
  for (const line of blocks.flatMap((b) => b.split('\n'))) {
    for (const m of line.matchAll(/(\S*)benchfleet (\S+)/g)) {
      const before = line.slice(0, m.index);
      // Only where a command starts (line start, after && ; | or $( ), not prose or a path like ~/.benchfleet.
      if (m[1] !== '' || !/(^\s*|&&\s*|;\s*|\|\s*|\$\(\s*)(npx )?$/.test(before)) continue;
      assert.match(before, /npx $/, `run through npx: ${line.trim()}`);
      assert.ok(SUBCOMMANDS.has(m[2]), `a real subcommand: ${line.trim()}`);
      found++;
    }
  }
  assert.ok(found >= 10, `found ${found} commands`);
  assert.match(readme, /npm link/, 'the alternative is documented');
});

test('the README has a Mac agent section with launchctl bootstrap gui/$UID and the reasons behind the plist', () => {
  const section = /\n## Mac agent\n([\s\S]*?)\n## /.exec(readme)?.[1];
  assert.ok(section, 'a "## Mac agent" section');
  for (const needed of ['launchctl bootstrap gui/$UID', 'launchctl bootout gui/$UID', 'ProcessType', '~/Library/Logs', 'SuccessfulExit', '--fatal-exit-code 0', 'caffeinate', 'hw.perflevel0.physicalcpu', 'pmset -g therm', '--max-load']) {
    assert.ok(section.includes(needed), `mentions ${needed}`);
  }
});
