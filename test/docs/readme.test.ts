// The README as a new user follows it: `benchfleet` is not on PATH after `npm ci`, so every
// command it shows runs as `npx benchfleet …` and names a real subcommand; and the Mac agent
// has its section, with the launchctl commands of today's macOS; and the test tiers it names are
// the ones test/run-tests.js and package.json run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

test('the test tiers split the suite: each file in exactly one, npm test runs them all once beside typecheck and lint, and the README names each', () => {
  const run = (...args: string[]): string[] => {
    const out = execFileSync(process.execPath, [fileURLToPath(new URL('../run-tests.js', import.meta.url)), ...args, '--list'], { encoding: 'utf8', env: { ...process.env, BENCHFLEET_TEST_FILTER: '' } });
    return out.split('\n').filter((l) => l !== '');
  };
  const all = run();
  const tiers = Object.fromEntries(['unit', 'fleet', 'netns', 'browser'].map((t) => [t, run(`--tier=${t}`)]));
  assert.deepEqual([...Object.values(tiers).flat()].sort(), [...all].sort(), 'every file in exactly one tier');
  assert.equal(new Set(all).size, all.length, 'npm test runs each file once');
  assert.deepEqual(all.slice(0, tiers['unit']?.length), tiers['unit'], 'unit first');
  assert.ok(all.includes('test/docs/readme.test.ts') && tiers['unit']?.includes('test/docs/readme.test.ts'));
  assert.deepEqual(tiers['unit']?.filter((f) => /^test\/(fleet|netns)\/|-browser\.test\.ts$/.test(f)), []);
  assert.ok(tiers['fleet']?.every((f) => f.startsWith('test/fleet/')) && tiers['fleet'].length > 0);
  assert.ok(tiers['netns']?.every((f) => f.startsWith('test/netns/')) && tiers['netns'].length > 0);
  assert.deepEqual(tiers['browser'], ['test/dashboard/dashboard-browser.test.ts', 'test/dashboard/history-browser.test.ts', 'test/dashboard/narrow-screen-browser.test.ts', 'test/dashboard/page-layout-browser.test.ts', 'test/dashboard/run-paging-browser.test.ts']);

  const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.equal(scripts['test'], 'node test/run-tests.js --checks');
  assert.ok(scripts['typecheck'] !== undefined && scripts['lint'] !== undefined, 'the scripts --checks runs');
  const section = /\n## Tests\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  for (const tier of ['unit', 'fleet', 'netns', 'browser']) {
    assert.equal(scripts[`test:${tier}`], `node test/run-tests.js --tier=${tier}`);
    assert.ok(section.includes(`npm run test:${tier}`), `the Tests section names npm run test:${tier}`);
  }
  assert.match(readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8'), /\nnpm test\n/);
});
