// `benchfleet kernel run` says what the kernel computed, in the kernel's terms: a digest in hex,
// a transform's output length and where it went, a verdict; a refused input is an error with a
// non-zero exit, not the number 4294967295; and it gives the time per call. The real CLI.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { runCli } from '../helpers/run-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchfleet-kernel-run-'));
const TIME_LINE = /^time per call: \d+(\.\d+)? (µs|ms|s) \(median of (\d+) calls, each in a fresh context; fastest \d+(\.\d+)? (µs|ms|s)\)$/;

function file(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const text = 'benchfleet kernel run: the same bytes on every machine.\n'.repeat(200);

describe('benchfleet kernel run prints what the kernel means', { concurrency: true }, () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a digest kernel\'s digest in hex, as sha256sum does, and its time per call', async () => {
    const input = file('text.txt', text);
    const result = await runCli(['kernel', 'run', 'sha256', '--input', input]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines[0], createHash('sha256').update(text).digest('hex'));
    assert.equal(lines[1], `SHA-256 of ${input} (${text.length} bytes)`);
    const time = TIME_LINE.exec(lines[2] ?? '');
    assert.ok(time, lines[2]);
    assert.equal(time[3], '5');
  });

  it('fails with one line and exit 1 when inflate is given bytes that are not a DEFLATE stream', async () => {
    const notDeflate = file('not-deflate.bin', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x00, 0x01]));
    const result = await runCli(['kernel', 'run', 'inflate', '--input', notDeflate, '--out', join(dir, 'never.out')]);
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr, `Error [KERNEL_REJECTED_INPUT]: inflate rejected ${notDeflate} (returned -1, no output): not a raw DEFLATE stream (RFC 1951): malformed or cut off, or inflating to more than 4 MiB; docs/kernels.md describes the input it expects\n`);
    assert.throws(() => readFileSync(join(dir, 'never.out')), /ENOENT/, 'nothing written for a refused input');
  });

  it('writes a transform\'s output to --out and says how long it is and where it went', async () => {
    const input = file('text.deflate', deflateRawSync(text));
    const out = join(dir, 'text.inflated');
    const result = await runCli(['kernel', 'run', 'inflate', '--input', input, '--out', out]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(out, 'utf8'), text);
    const lines = result.stdout.trimEnd().split('\n');
    const sha = createHash('sha256').update(text).digest('hex');
    assert.equal(lines[0], `DEFLATE inflate: ${readFileSync(input).length} bytes in, ${text.length} bytes out, written to ${out}; output SHA256 ${sha}`);
    assert.match(lines[1] ?? '', TIME_LINE);
  });

  it('keeps everything in --json: return value, digest, output length and SHA256, every call\'s time', async () => {
    const input = file('json.txt', text);
    const result = await runCli(['kernel', 'run', 'sha256', '--input', input, '--calls', '3', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
    const digest = createHash('sha256').update(text).digest();
    assert.equal(parsed['digestHex'], digest.toString('hex'));
    assert.equal(parsed['return'], digest.readUInt32BE(0));
    assert.equal(parsed['rejected'], false);
    assert.equal(parsed['outputBytes'], 32);
    assert.equal(parsed['outputSha256'], createHash('sha256').update(digest).digest('hex'));
    const time = parsed['time'] as { calls: number; ns: number[]; medianNs: number; minNs: number };
    assert.equal(time.calls, 3);
    assert.equal(time.ns.length, 3);
    assert.equal(time.minNs, Math.min(...time.ns));
    assert.ok(time.medianNs >= time.minNs);
  });

  it('says whether bytes are valid UTF-8 rather than printing 0 or 1', async () => {
    const input = file('bad-utf8.bin', new Uint8Array([0x61, 0xc3, 0x28]));
    const result = await runCli(['kernel', 'run', 'utf8-validate', '--input', input, '--calls', '1']);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2, result.stdout);
    assert.equal(lines[0], `${input} (3 bytes): not valid (UTF-8 validate returned 0)`);
    assert.match(lines[1] ?? '', /^time per call: \S+ \S+ \(one call\)$/);
  });
});
