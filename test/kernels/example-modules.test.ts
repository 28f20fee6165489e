// The example modules (examples/) and how a plan carries a module: built again from their C
// sources with Debian's clang, lld and wasi-libc, they are byte for byte the files whose SHA-256
// the plans in deploy/plans pin; `run` and `harness` read a plan's module file and input folder
// into the plan (kernels/user-module/pack.ts), refuse a file that is not the pinned one, and leave
// a plan that already carries its bytes exactly as it is (the agent hashes what the coordinator did).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kernelNames } from '../../kernels/kernel-names.ts';
import { packPlanModules } from '../../kernels/user-module/pack.ts';
import { checkPlanModules } from '../../kernels/user-module/prepare.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { growsModule } from '../fixtures/wasm-modules.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function pinned(plan: string): string {
  const doc = JSON.parse(readFileSync(join(ROOT, 'deploy/plans', plan), 'utf8')) as { modules: { sha256: string }[] };
  return doc.modules[0]?.sha256 ?? '';
}

test('examples/build.sh builds the two example modules byte for byte as the plans pin them', (t) => {
  const out = mkdtempSync(join(tmpdir(), 'bf-examples-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  execFileSync('bash', [join(ROOT, 'examples/build.sh'), out], { stdio: 'pipe' });
  assert.equal(sha(readFileSync(join(out, 'xxh64.wasm'))), pinned('example-xxh64.json'));
  assert.equal(sha(readFileSync(join(out, 'tokenize.wasm'))), pinned('example-jsmn.json'));
  assert.equal(sha(readFileSync(join(ROOT, 'examples/xxhash/xxh64.wasm'))), pinned('example-xxh64.json'));
  assert.equal(sha(readFileSync(join(ROOT, 'examples/jsmn/tokenize.wasm'))), pinned('example-jsmn.json'));
});

test('the example plans, with their files read in, are valid plans whose modules keep the contract', () => {
  for (const [file, name, inputs] of [['example-xxh64.json', 'xxh64', 0], ['example-jsmn.json', 'jsmn', 4]] as const) {
    const path = join(ROOT, 'deploy/plans', file);
    const text = packPlanModules(readFileSync(path, 'utf8'), path);
    const plan = parsePlan(JSON.parse(text), kernelNames());
    assert.equal(plan.modules?.[0]?.name, name);
    const given = plan.modules?.[0]?.inputs;
    assert.equal(given && 'files' in given ? given.files.length : 0, inputs);
    checkPlanModules(plan.modules);
    assert.equal(packPlanModules(text, path), text, 'a plan that carries its bytes is left byte for byte');
  }
});

test('a plan whose module file is not the pinned one, or whose module breaks the contract, is refused before it is sent', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bf-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const bytes = growsModule();
  writeFileSync(join(dir, 'm.wasm'), bytes);
  mkdirSync(join(dir, 'in'));
  writeFileSync(join(dir, 'in', 'a.bin'), 'abc');
  const module = { name: 'm', file: 'm.wasm', sha256: 'c'.repeat(64), entry: 'sum', input: { abi: 'bytes', at: 'in' }, inputs: { folder: 'in' } };
  const plan = (m: object): string => JSON.stringify({ arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 1, seed: 1, modules: [m] });
  assert.throws(() => packPlanModules(plan(module), join(dir, 'plan.json')), { code: 'PLAN_INVALID', message: `plan.modules[0].file m.wasm has SHA-256 ${sha(bytes)}, but the plan pins ${'c'.repeat(64)}` });
  assert.throws(() => packPlanModules(plan({ ...module, file: 'missing.wasm' }), join(dir, 'plan.json')), { code: 'FILE_NOT_FOUND', message: /^plan\.modules\[0\]\.file: cannot read .*missing\.wasm/ });
  const packed = packPlanModules(plan({ ...module, sha256: sha(bytes) }), join(dir, 'plan.json'));
  const parsed = parsePlan(JSON.parse(packed), kernelNames());
  const given = parsed.modules?.[0]?.inputs;
  assert.deepEqual(given && 'files' in given ? given.files : null, [{ name: 'a.bin', sha256: sha(Buffer.from('abc')), base64: 'YWJj' }]);
  assert.throws(() => checkPlanModules(parsed.modules), { code: 'MODULE_REFUSED', message: /^module "m" breaks the context contract: memory\.grow at byte \d+/ });
});
