// The plan validator accepts the study's plan and refuses bad ones with an error that names
// the field at fault.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STUDY_PLAN } from '../../shared/plan.ts';
import { parsePlan, planArms, planKernels } from '../../shared/plan-validate.ts';
import { applyPolicyEnv } from '../../shared/plan-policy-env.ts';
import { kernelNames } from '../../kernels/catalog.ts';
import { ARM_NAMES } from '../../shared/arms.ts';

const base = { kernels: ['xxhash32'], arms: ['taskpool-2-batched'], policies: ['pages'], rounds: 2, repeats: 2, jobs: 4, seed: 1 };

function fails(plan: unknown, message: string | RegExp): void {
  assert.throws(() => parsePlan(plan, kernelNames()), (error: unknown) => {
    assert.ok(error instanceof Error);
    assert.equal((error as { code?: string }).code, 'PLAN_INVALID');
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  });
}

test('the study plan is valid and expands to every kernel and the 17 arms', () => {
  const plan = parsePlan(JSON.parse(JSON.stringify(STUDY_PLAN)), kernelNames());
  assert.deepEqual(plan, STUDY_PLAN);
  assert.deepEqual(planKernels(plan, kernelNames()), kernelNames());
  assert.deepEqual(planArms(plan), ARM_NAMES);
  assert.equal(planArms(plan).length, 17);
});

test('non-positive or non-integer counts name their field', () => {
  fails({ ...base, rounds: 0 }, 'plan.rounds must be a positive integer, got 0');
  fails({ ...base, repeats: -1 }, 'plan.repeats must be a positive integer, got -1');
  fails({ ...base, jobs: 2.5 }, 'plan.jobs must be a positive integer, got 2.5');
  fails({ ...base, jobs: '16' }, 'plan.jobs must be a positive integer, got "16"');
  const { rounds: _rounds, ...noRounds } = base;
  fails(noRounds, 'plan.rounds must be a positive integer, got nothing');
});

test('unknown fields are rejected by name', () => {
  fails({ ...base, colour: 'blue' }, /^plan\.colour is not a plan field; fields are name, kernels, arms/);
});

test('unknown or repeated kernels and arms name their index', () => {
  fails({ ...base, kernels: ['xxhash32', 'nope'] }, /^plan\.kernels\[1\] "nope" is not a known kernel; known: /);
  fails({ ...base, kernels: ['xxhash32', 'xxhash32'] }, 'plan.kernels[1] "xxhash32" is listed twice');
  fails({ ...base, arms: ['taskpool-3-batched'] }, /^plan\.arms\[0\] "taskpool-3-batched" is not a known arm; known: native, workers-1-batched/);
  fails({ ...base, kernels: [] }, 'plan.kernels must be "all" or a non-empty array of kernel names, got an array');
  fails({ ...base, arms: 'some' }, 'plan.arms must be "all" or a non-empty array of arm names, got "some"');
});

test('native is added to a list of arms that lacks it, first', () => {
  const plan = parsePlan(base, kernelNames());
  assert.deepEqual(plan.arms, ['native', 'taskpool-2-batched']);
  assert.deepEqual(planArms(plan), ['native', 'taskpool-2-batched']);
});

test('FOLIO_CORPUS_RESET is written into a plan that names no policies, before hashing; the validator never reads it', () => {
  const { policies: _policies, ...noPolicies } = base;
  const text = `${JSON.stringify(noPolicies)}\n`;
  const resolved = applyPolicyEnv(text, { FOLIO_CORPUS_RESET: 'whole, pages' });
  assert.deepEqual(JSON.parse(resolved), { ...noPolicies, policies: ['whole', 'pages'] });
  assert.deepEqual(parsePlan(JSON.parse(resolved), kernelNames()).policies, ['whole', 'pages']);
  assert.equal(applyPolicyEnv(`${JSON.stringify({ ...base, policies: [] })}\n`, { FOLIO_CORPUS_RESET: 'checkpoint' }).includes('"checkpoint"'), true);
  const named = `${JSON.stringify(base)}\n`;
  assert.equal(applyPolicyEnv(named, { FOLIO_CORPUS_RESET: 'whole' }), named, 'a plan that names its policies is left byte for byte');
  assert.equal(applyPolicyEnv(text, {}), text, 'unset: unchanged');
  assert.throws(() => applyPolicyEnv(text, { FOLIO_CORPUS_RESET: 'wholesale' }), { message: 'FOLIO_CORPUS_RESET="wholesale": "wholesale" is not a policy; policies are whole, pages, checkpoint, tracked, fresh' });
  const saved = process.env['FOLIO_CORPUS_RESET'];
  process.env['FOLIO_CORPUS_RESET'] = 'pages';
  try {
    fails(noPolicies, 'plan.policies is missing: name the reset policies (whole, pages, checkpoint, tracked, fresh) or set FOLIO_CORPUS_RESET for `run` or `harness`');
  } finally {
    if (saved === undefined) delete process.env['FOLIO_CORPUS_RESET'];
    else process.env['FOLIO_CORPUS_RESET'] = saved;
  }
  fails({ ...base, policies: ['pages', 'snapshot'] }, 'plan.policies[1] "snapshot" is not a policy; policies are whole, pages, checkpoint, tracked, fresh');
});

test('rounds, repeats, jobs and the total number of samples have stated upper bounds that name the field', () => {
  fails({ ...base, rounds: 1e9 }, 'plan.rounds is 1000000000; at most 1,000 (docs/plan.md, "Limits")');
  fails({ ...base, repeats: 1001 }, 'plan.repeats is 1001; at most 1,000 (docs/plan.md, "Limits")');
  fails({ ...base, jobs: 2_000_000 }, 'plan.jobs is 2000000; at most 1,000,000 (docs/plan.md, "Limits")');
  fails({ ...base, kernels: 'all', arms: 'all', policies: ['whole', 'pages', 'checkpoint', 'tracked', 'fresh'], rounds: 1000 }, /^plan has 21 kernels x 17 arms x 5 policies x 1000 rounds = 1,785,000 samples; at most 200,000 in one plan/);
  assert.equal(parsePlan({ ...base, rounds: 1000, repeats: 1000, jobs: 1_000_000 }, kernelNames()).rounds, 1000);
});

test('schedule, seed, page size, input sizes and warm-up are checked', () => {
  fails({ ...base, schedule: 'random' }, 'plan.schedule must be "sequential" or "interleaved", got "random"');
  fails({ ...base, seed: -1 }, 'plan.seed must be an integer from 0 to 4294967295, got -1');
  fails({ ...base, pageSize: 3000 }, 'plan.pageSize must be a power of two from 1024 to 65536 bytes, got 3000');
  fails({ ...base, inputSizes: { 'sort-u32': 4096 } }, 'plan.inputSizes.sort-u32 names a kernel the plan does not run');
  fails({ ...base, inputSizes: { xxhash32: 4 * 1024 * 1024 } }, 'plan.inputSizes.xxhash32 is 4194304 bytes; the input region holds at most 3145728');
  fails({ ...base, warmupJobs: -2 }, 'plan.warmupJobs must be an integer of at least 0, got -2');
  fails([base], 'plan must be a JSON object, got an array');
  const plan = parsePlan({ ...base, schedule: 'interleaved', pageSize: 16384, inputSizes: { xxhash32: 1000 }, warmupJobs: 0, name: 'x' }, kernelNames());
  assert.equal(plan.schedule, 'interleaved');
  assert.equal(plan.pageSize, 16384);
  assert.deepEqual(plan.inputSizes, { xxhash32: 1000 });
  assert.equal(plan.warmupJobs, 0);
  assert.equal(parsePlan(base, kernelNames()).schedule, 'sequential');
});

test('inputs is "fixed" or "varying", absent by default, and changes the plan hash when given', () => {
  fails({ ...base, inputs: 'random' }, 'plan.inputs must be "fixed" or "varying", got "random"');
  assert.equal(parsePlan(base, kernelNames()).inputs, undefined);
  assert.equal(parsePlan({ ...base, inputs: 'varying' }, kernelNames()).inputs, 'varying');
  assert.notEqual(JSON.stringify(parsePlan({ ...base, inputs: 'varying' }, kernelNames())), JSON.stringify(parsePlan(base, kernelNames())));
});

test('the kernel names a plan may use are the ones the caller passes, not a catalog the validator imports', () => {
  const known = ['alpha', 'beta'];
  const plan = parsePlan({ ...base, kernels: ['beta'], inputSizes: { beta: 64 } }, known);
  assert.deepEqual(plan.kernels, ['beta']);
  assert.deepEqual(planKernels(parsePlan({ ...base, kernels: 'all' }, known), known), ['alpha', 'beta']);
  assert.throws(() => parsePlan(base, known), { code: 'PLAN_INVALID', message: 'plan.kernels[0] "xxhash32" is not a known kernel; known: alpha, beta' });
});
