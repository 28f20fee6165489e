// Tokens never on the command line: `--token` is refused with the reason and the ways that
// work, by every command that takes a token, before anything connects or starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../helpers/run-cli.ts';

test('--token is refused, saying why, by status, agent and coordinator alike', async () => {
  const commands = [
    ['status', '--coordinator', 'http://127.0.0.1:9'],
    ['agent', '--coordinator', 'http://127.0.0.1:9', '--name', 'ryzen'],
    ['coordinator', '--data', '/nonexistent/benchfleet'],
  ];
  const results = await Promise.all(commands.map((args) => runCli([...args, '--token', 'a-secret-that-ps-would-show'], { env: { BENCHFLEET_TOKEN: '' } })));
  for (const [i, r] of results.entries()) {
    assert.equal(r.code, 2, `${commands[i]?.[0]}: ${r.stderr}`);
    assert.match(r.stderr, /^Error \[USAGE\]: --token is refused: a token on the command line is visible to every user in `ps` and in shell history; put it in a file only you can read \(--token-file FILE, `chmod 600`\) or in \$BENCHFLEET_TOKEN$/m);
    assert.equal(r.stderr.includes('a-secret-that-ps-would-show'), false, 'the refusal does not echo the token');
  }
});
