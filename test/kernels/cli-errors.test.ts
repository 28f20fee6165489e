// `benchfleet kernel run` as a user meets it: the real CLI in a child process, checked for the
// promise every command makes on bad input: one line on stderr, no stack trace, non-zero exit.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'benchfleet-cli-errors-'));
const INPUT_CAP = 3 * 1024 * 1024;

interface CliResult { status: number | null; stdout: string; stderr: string }

/** Run `node bin/benchfleet.js ...args` from the repository root (the bin registers the TypeScript hooks itself). */
function cli(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['BENCHFLEET_DEBUG'];
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/benchfleet.js', ...args], { cwd: ROOT, env, encoding: 'utf8' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status: code, stdout, stderr });
    });
  });
}

function assertOneLineError(result: CliResult, pattern: RegExp): void {
  assert.notEqual(result.status, 0, 'exit status');
  assert.equal(result.stdout, '');
  assert.ok(result.stderr.endsWith('\n'), `stderr ends its line: ${JSON.stringify(result.stderr)}`);
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, `stderr is one line: ${JSON.stringify(result.stderr)}`);
  assert.ok(!result.stderr.includes('    at '), 'no stack trace');
  assert.match(result.stderr, pattern);
}

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

// The child processes each spend most of their time loading the TypeScript hooks and modules, so they run side by side.
describe('benchfleet kernel run on bad input', { concurrency: true }, () => {
  const valid = file('valid-aes.bin', new Uint8Array(32 + 48));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fails for an unknown kernel and lists the known kernels', async () => {
    const result = await cli(['kernel', 'run', 'no-such-kernel', '--input', valid]);
    assertOneLineError(result, /^Error \[UNKNOWN_KERNEL\]: unknown kernel "no-such-kernel"; known kernels: .*\baes-cbc-decrypt\b.*\bsha256\b.*\bxxhash32\b/);
  });

  it('fails for an input file that does not exist and names it', async () => {
    const missing = join(dir, 'missing.bin');
    const result = await cli(['kernel', 'run', 'sha256', '--input', missing]);
    assertOneLineError(result, new RegExp(`^Error \\[FILE_NOT_FOUND\\]: no such file: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`));
  });

  it('fails for an input one byte over the 3 MiB input region and states the limit', async () => {
    const big = file('big.bin', new Uint8Array(INPUT_CAP + 1));
    const result = await cli(['kernel', 'run', 'sha256', '--input', big]);
    assertOneLineError(result, new RegExp(`^Error \\[INPUT_TOO_LARGE\\]: .*big\\.bin is ${INPUT_CAP + 1} bytes; sha256 takes at most ${INPUT_CAP} bytes of input`));
  });

  it('fails for AES input whose ciphertext is not a multiple of 16 bytes and gives the expected layout', async () => {
    const bad = file('bad-aes.bin', new Uint8Array(32 + 20));
    const result = await cli(['kernel', 'run', 'aes-cbc-decrypt', '--input', bad]);
    assertOneLineError(result, /^Error \[INPUT_MALFORMED\]: .*bad-aes\.bin: ciphertext is 20 bytes, not a multiple of 16; expected key \(16 bytes\) ‖ IV \(16 bytes\) ‖ ciphertext/);
  });

  it('succeeds on well-formed AES input, so the failures above are about the input', async () => {
    const result = await cli(['kernel', 'run', 'aes-cbc-decrypt', '--input', valid, '--json']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
    const parsed: unknown = JSON.parse(result.stdout);
    assert.ok(typeof parsed === 'object' && parsed !== null);
    assert.equal((parsed as Record<string, unknown>)['return'], 48);
    assert.equal((parsed as Record<string, unknown>)['outputBytes'], 48);
  });
});
