// A user's module against the context contract (kernels/user-module/prepare.ts) and the plan's
// `modules` field (shared/plan-modules.ts): what is refused and with which words, and what a
// prepared module looks like (the corpus ABI around the user's entry, memory imported, mutable
// globals and the table exported, its tracked twin marking its stores).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { kernelNames } from '../../kernels/kernel-names.ts';
import { inspectModule } from '../../kernels/wasm-inspect.ts';
import { instantiateKernel, runOnce } from '../../kernels/instance.ts';
import { checkPlanModules, prepareUserModule } from '../../kernels/user-module/prepare.ts';
import type { UserModule } from '../../shared/plan-modules.ts';
import { MAX_CARRIED_BYTES, MAX_MODULE_BYTES } from '../../shared/plan-modules.ts';
import { parsePlan } from '../../shared/plan-validate.ts';
import { bigModule, callsStubModule, growsModule, integersModule, memorylessModule, sumModule, trapsAtStartModule } from '../fixtures/wasm-modules.ts';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

function sumSpec(bytes: Uint8Array, extra: Partial<UserModule> = {}): UserModule {
  return { name: 'sum', sha256: sha(bytes), wasm: b64(bytes), entry: 'sum', input: { abi: 'bytes', at: 'in', capacity: 2048 }, output: { at: 'out', length: 4 }, inputs: { seed: 1, size: 100 }, ...extra };
}

function planDoc(modules: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { arms: ['native'], policies: ['whole'], rounds: 1, repeats: 1, jobs: 2, seed: 1, modules, ...extra };
}

test('a prepared module keeps the corpus contract: env.memory imported up to the arena, table and mutable globals exported, run/output_len around the entry', () => {
  const bytes = sumModule();
  const prepared = prepareUserModule(sumSpec(bytes), bytes);
  const shape = inspectModule(prepared.plain);
  assert.deepEqual(shape.imports.map((i) => [i.module, i.name, i.kind, i.memory]), [['env', 'memory', 'memory', { initial: 1, maximum: 128, shared: false }]]);
  const exported = new Set(shape.exports.map((e) => e.name));
  for (const name of ['run', 'output_len', 'table', 'INPUT_PTR', 'INPUT_CAP', 'OUTPUT_PTR', 'OUTPUT_CAP', 'mutable_global_2', 'sum']) assert.ok(exported.has(name), `exports ${name}`);
  assert.deepEqual(prepared.layout, { memoryPages: 1, inputPtr: 1024, inputCap: 2048, outputPtr: 4096, outputCap: 4, dirtyMapPtr: 65536 });
  const instance = instantiateKernel(new WebAssembly.Module(prepared.plain));
  const outcome = runOnce(instance, new Uint8Array([1, 2, 3, 250]));
  assert.equal(outcome.returnValue, 256);
  assert.deepEqual([...outcome.output], [0, 1, 0, 0]);
  // The twin marks the card of its one store (OUTPUT at 4096: card 4) and the host's input write (card 1).
  assert.equal(prepared.marks.stores, 1);
  const twin = instantiateKernel(new WebAssembly.Module(prepared.tracked));
  assert.equal(twin.layout.dirtyMapPtr, 65536);
  runOnce(twin, new Uint8Array([5]));
  const map = new Uint8Array(twin.memory.buffer, 65536, 8);
  assert.deepEqual([...map], [0, 0, 0, 0, 1, 0, 0, 0]);
});

test('the integers ABI calls the entry with each list as its arguments, i64 included, and records the low 32 bits', () => {
  const bytes = integersModule();
  const spec: UserModule = { name: 'mix', sha256: sha(bytes), wasm: b64(bytes), entry: 'mix', input: { abi: 'integers' }, inputs: { args: [[2 ** 40, -3]] } };
  const prepared = prepareUserModule(spec, bytes);
  const instance = instantiateKernel(new WebAssembly.Module(prepared.plain));
  const args = new Uint8Array(16);
  new DataView(args.buffer).setBigInt64(0, 2n ** 40n, true);
  new DataView(args.buffer).setBigInt64(8, -3n, true);
  const expected = Number(BigInt.asUintN(32, 2n ** 40n * 31n - 3n));
  assert.equal(runOnce(instance, args).returnValue, expected);
  assert.equal(prepared.layout.inputPtr, 65536 + 8192);
  assert.equal(prepared.layout.inputCap, 16);
});

test('imports the plan does not declare are refused with the whole list; declared stubs are kept and trap when called', () => {
  const bytes = sumModule({ imports: [['env', 'log', [[], []]], ['wasi_snapshot_preview1', 'fd_write', [[], []]]] });
  assert.throws(() => prepareUserModule(sumSpec(bytes), bytes), { code: 'MODULE_REFUSED', message: 'module "sum" breaks the context contract: imports env.log, wasi_snapshot_preview1.fd_write, which the plan does not declare in stubs' });
  assert.throws(() => prepareUserModule(sumSpec(bytes, { stubs: ['env.log'] }), bytes), { message: /imports wasi_snapshot_preview1\.fd_write, which the plan/ });
  const calls = callsStubModule();
  const prepared = prepareUserModule(sumSpec(calls, { stubs: ['wasi_snapshot_preview1.fd_write'] }), calls);
  const instance = instantiateKernel(new WebAssembly.Module(prepared.plain));
  assert.throws(() => runOnce(instance, new Uint8Array([1])), { name: 'RuntimeError', message: 'the module called wasi_snapshot_preview1.fd_write, a stub the plan declares: stubs trap when called' });
});

test('a module that grows its memory, has no memory, or has the wrong entry is refused naming what broke', () => {
  const grows = growsModule();
  assert.throws(() => prepareUserModule(sumSpec(grows), grows), { code: 'MODULE_REFUSED', message: /^module "sum" breaks the context contract: memory\.grow at byte \d+: the arena has a fixed size, so a module may not grow its memory$/ });
  const none = memorylessModule();
  assert.throws(() => prepareUserModule(sumSpec(none), none), { message: /has 0 memories; it must have exactly one/ });
  const bytes = sumModule();
  assert.throws(() => prepareUserModule(sumSpec(bytes, { entry: 'nope' }), bytes), { message: /entry "nope" is not an exported function; it exports sum/ });
  assert.throws(() => prepareUserModule(sumSpec(bytes, { input: { abi: 'integers' }, inputs: { args: [[1, 2]] } }), bytes), { message: /inputs\.args\[0\] has 2 arguments; entry "sum" takes 1/ });
  assert.throws(() => prepareUserModule(sumSpec(bytes, { input: { abi: 'bytes', at: 'nowhere' } }), bytes), { message: /input\.at names "nowhere", which the module does not export as a global/ });
  const big = sumModule({ memory: [128, null] });
  assert.throws(() => prepareUserModule(sumSpec(big), big), { message: /its memory starts at 128 pages; a module may take at most 127 of the arena's 128/ });
  assert.throws(() => prepareUserModule(sumSpec(bytes), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99])), { message: /is not a valid WebAssembly module/ });
});

test('the plan validator checks a module\'s fields, its pinned SHA-256 and the size bound, naming the field', () => {
  const bytes = sumModule();
  const ok = parsePlan(planDoc([sumSpec(bytes)]), kernelNames());
  assert.deepEqual(ok.kernels, []);
  assert.equal(ok.modules?.[0]?.name, 'sum');
  const lie = { ...sumSpec(bytes), sha256: 'a'.repeat(64) };
  assert.throws(() => parsePlan(planDoc([lie]), kernelNames()), { code: 'PLAN_INVALID', message: `plan.modules[0].wasm has SHA-256 ${sha(bytes)}, but the plan pins ${'a'.repeat(64)}` });
  const big = bigModule(MAX_MODULE_BYTES);
  assert.throws(() => parsePlan(planDoc([sumSpec(big)]), kernelNames()), { message: `plan.modules[0].wasm is ${big.length} bytes; a plan carries at most ${MAX_MODULE_BYTES}` });
  // Each module within its bound, but together over what one plan may carry.
  const half = bigModule(MAX_CARRIED_BYTES / 2);
  const twoHalves = [{ ...sumSpec(half), name: 'a' }, { ...sumSpec(half), name: 'b' }];
  assert.throws(() => parsePlan(planDoc(twoHalves), kernelNames()), { message: `plan.modules[1] brings the modules and input files the plan carries to ${2 * half.length} bytes; at most ${MAX_CARRIED_BYTES} in one plan` });
  const { wasm: _, ...unpacked } = sumSpec(bytes);
  assert.throws(() => parsePlan(planDoc([unpacked]), kernelNames()), { message: /^plan\.modules\[0\]\.wasm is missing: the plan must carry the bytes as base64/ });
  assert.throws(() => parsePlan(planDoc([{ ...sumSpec(bytes), name: 'sha256' }]), kernelNames()), { message: 'plan.modules[0].name "sha256" is a built-in kernel\'s name; give the module its own' });
  assert.throws(() => parsePlan(planDoc([{ ...sumSpec(bytes), colour: 1 }]), kernelNames()), { message: /^plan\.modules\[0\]\.colour is not a field here; fields are name, file, sha256/ });
  assert.throws(() => parsePlan(planDoc([{ ...sumSpec(bytes), memoryPages: 128 }]), kernelNames()), { message: 'plan.modules[0].memoryPages must be an integer from 1 to 127, got 128' });
  assert.throws(() => parsePlan(planDoc([{ ...sumSpec(bytes), expected: { 'job-1': 'b'.repeat(64) } }]), kernelNames()), { message: 'plan.modules[0].expected.job-1 names no input of this module; inputs are job-0' });
  assert.throws(() => parsePlan(planDoc([{ ...sumSpec(bytes), inputs: { folder: 'x' } }]), kernelNames()), { message: /^plan\.modules\[0\]\.inputs must name a folder of input files/ });
  // Beside built-in kernels, the module's name joins them in the plan's kernels for records and reports.
  const both = parsePlan(planDoc([sumSpec(bytes)], { kernels: ['sha256'] }), kernelNames());
  assert.deepEqual(both.kernels, ['sha256']);
});

test('a module whose start function traps is refused when the plan is checked, with the trap', () => {
  const bytes = trapsAtStartModule();
  assert.ok(prepareUserModule(sumSpec(bytes), bytes).plain.length > 0, 'its bytes keep the contract');
  assert.throws(() => checkPlanModules([sumSpec(bytes)]), { code: 'MODULE_REFUSED', message: /^module "sum" cannot be instantiated: .*unreachable/ });
});
