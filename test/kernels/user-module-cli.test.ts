// `benchfleet kernel run ./my.wasm`: a user's module tried locally, prepared as a plan's module
// is, through the real CLI process: the return value, the output's SHA-256 (what a plan's
// `expected` takes) and the module's SHA-256 (what a plan pins); a module that breaks the
// contract is refused with the reason and exit code 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import xxhashWasm from 'xxhash-wasm';
import { runCli } from '../helpers/run-cli.ts';

const XXH64 = fileURLToPath(new URL('../../examples/xxhash/xxh64.wasm', import.meta.url));
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

test('kernel run on the xxh64 example prints XXH64 of the file as its return value and output, and the module SHA-256 the plan pins', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-kernel-run-module-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const input = new TextEncoder().encode('benchfleet runs your own module\n'.repeat(1000));
  writeFileSync(join(dir, 'in.txt'), input);
  const hash = (await xxhashWasm()).h64Raw(input, 0n);
  const digest = new Uint8Array(8);
  new DataView(digest.buffer).setBigUint64(0, hash, false);
  const result = await runCli(['kernel', 'run', XXH64, '--input', join(dir, 'in.txt'), '--entry', 'xxh64', '--input-at', 'input', '--output-at', 'digest', '--output-length', '8', '--calls', '2', '--json']);
  assert.equal(result.code, 0, result.stderr);
  const out = JSON.parse(result.stdout) as { return: number; outputBytes: number; outputSha256: string; moduleSha256: string; time: { calls: number } };
  assert.equal(out.return, Number(hash & 0xffffffffn));
  assert.equal(out.outputBytes, 8);
  assert.equal(out.outputSha256, sha(digest));
  assert.equal(out.moduleSha256, 'f3cf0b9b25f961357802ec8997a99dcb913f7fa0871c882b38c5c2dc6edef1d4');
  assert.equal(out.time.calls, 2);
});

test('kernel run refuses a module that imports what is not declared as a stub, naming the import', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-kernel-run-refused-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { sumModule } = await import('../fixtures/wasm-modules.ts');
  writeFileSync(join(dir, 'm.wasm'), sumModule({ imports: [['env', 'abort', [[], []]]] }));
  writeFileSync(join(dir, 'in.bin'), 'abc');
  const args = ['kernel', 'run', join(dir, 'm.wasm'), '--input', join(dir, 'in.bin'), '--entry', 'sum', '--input-at', 'in'];
  const refused = await runCli(args);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr.trim(), 'Error [MODULE_REFUSED]: module "m" breaks the context contract: imports env.abort, which the plan does not declare in stubs');
  const stubbed = await runCli([...args, '--stub', 'env.abort', '--output-at', 'out', '--output-length', '4']);
  assert.equal(stubbed.code, 0, stubbed.stderr);
  assert.match(stubbed.stdout, /^returned 294 \(0x00000126\)\n/);
});

test('run and harness refuse a plan whose module breaks the contract, naming the plan file and the problem, before connecting or writing anything', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-plan-refused-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { growsModule } = await import('../fixtures/wasm-modules.ts');
  const bytes = growsModule();
  writeFileSync(join(dir, 'm.wasm'), bytes);
  const module = { name: 'm', file: 'm.wasm', sha256: sha(bytes), entry: 'sum', input: { abi: 'bytes', at: 'in' }, inputs: { seed: 1, size: 4 } };
  writeFileSync(join(dir, 'plan.json'), JSON.stringify({ arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 1, seed: 1, modules: [module] }));
  const run = await runCli(['run', join(dir, 'plan.json'), '--machines', 'a', '--coordinator', 'http://127.0.0.1:9']);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /^Error \[MODULE_REFUSED\]: .*plan\.json: module "m" breaks the context contract: memory\.grow at byte \d+: the arena has a fixed size, so a module may not grow its memory\n$/);
  const harness = await runCli(['harness', '--plan', join(dir, 'plan.json'), '--out', join(dir, 'out')]);
  assert.equal(harness.code, 1);
  assert.match(harness.stderr, /^Error \[MODULE_REFUSED\]: module "m" breaks the context contract: memory\.grow/);
  assert.equal(existsSync(join(dir, 'out')), false);
});
