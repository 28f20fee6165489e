// The plan validator: turns parsed JSON into a Plan or throws a PLAN_INVALID error that names
// the field at fault (`plan.rounds must be a positive integer, got 0`). Plans are wire data —
// the coordinator, the agent and the harness all pass them through here before trusting them.
// docs/plan.md is the reference for every field.
import { ARM_NAMES, NATIVE_ARM } from './arms.ts';
import { BenchfleetError } from './errors.ts';
import type { Plan, Schedule } from './plan.ts';
import { parseModules } from './plan-modules.ts';
import { POLICIES, isPolicy, type Policy } from './policies.ts';

/**
 * Upper bounds of a plan's sizes. The harness builds the whole schedule before it starts, so an
 * unbounded plan (`rounds: 1e9`) would run V8 out of memory instead of failing with a message.
 * Each is far above the study's (7 rounds, 4 repeats, 16 jobs, 21 x 17 x 3 x 7 = 7,497 samples).
 */
export const PLAN_LIMITS = { rounds: 1000, repeats: 1000, jobs: 1_000_000, samples: 200_000 } as const;

/** The input region every kernel shares (kernels/assembly/common/layout.ts: INPUT_CAP). */
export const MAX_INPUT_BYTES = 3 * 1024 * 1024;

export const DEFAULT_PAGE_SIZE = 4096;
export const DEFAULT_WARMUP_JOBS = 2;

const FIELDS = ['name', 'kernels', 'arms', 'policies', 'rounds', 'repeats', 'jobs', 'seed', 'schedule', 'pageSize', 'inputSizes', 'warmupJobs', 'inputs', 'modules'] as const;
const SCHEDULES: readonly Schedule[] = ['sequential', 'interleaved'];

function invalid(message: string): BenchfleetError {
  return new BenchfleetError('PLAN_INVALID', message);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalid(`plan.${field} must be a positive integer, got ${describe(value)}`);
  }
  return value;
}

function bounded(value: unknown, field: 'rounds' | 'repeats' | 'jobs'): number {
  const n = positiveInteger(value, field);
  if (n > PLAN_LIMITS[field]) throw invalid(`plan.${field} is ${n}; at most ${PLAN_LIMITS[field].toLocaleString('en-US')} (docs/plan.md, "Limits")`);
  return n;
}

/** A list of distinct names from `known`, or "all". */
function nameList(value: unknown, field: string, known: readonly string[], what: string): string[] | 'all' {
  if (value === 'all') return 'all';
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(`plan.${field} must be "all" or a non-empty array of ${what} names, got ${describe(value)}`);
  }
  const seen = new Set<string>();
  value.forEach((name: unknown, i) => {
    if (typeof name !== 'string') throw invalid(`plan.${field}[${i}] must be a ${what} name, got ${describe(name)}`);
    if (!known.includes(name)) throw invalid(`plan.${field}[${i}] "${name}" is not a known ${what}; known: ${known.join(', ')}`);
    if (seen.has(name)) throw invalid(`plan.${field}[${i}] "${name}" is listed twice`);
    seen.add(name);
  });
  return [...seen];
}

function policyList(value: unknown): Policy[] {
  const named = value === undefined || (Array.isArray(value) && value.length === 0) ? undefined : value;
  if (named === undefined) {
    // FOLIO_CORPUS_RESET is resolved into the plan text by the CLI (shared/plan-policy-env.ts), never here:
    // a plan's hash names one set of policies wherever it is read.
    throw invalid(`plan.policies is missing: name the reset policies (${POLICIES.join(', ')}) or set FOLIO_CORPUS_RESET for \`run\` or \`harness\``);
  }
  if (!Array.isArray(named)) throw invalid(`plan.policies must be an array of policy names, got ${describe(named)}`);
  const seen = new Set<Policy>();
  named.forEach((name: unknown, i) => {
    if (!isPolicy(name)) throw invalid(`plan.policies[${i}] ${describe(name)} is not a policy; policies are ${POLICIES.join(', ')}`);
    if (seen.has(name)) throw invalid(`plan.policies[${i}] "${name}" is listed twice`);
    seen.add(name);
  });
  return [...seen];
}

function inputSizes(value: unknown, kernels: readonly string[]): Record<string, number> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`plan.inputSizes must be an object of kernel name to byte count, got ${describe(value)}`);
  }
  const out: Record<string, number> = {};
  for (const [name, size] of Object.entries(value)) {
    if (!kernels.includes(name)) throw invalid(`plan.inputSizes.${name} names a kernel the plan does not run`);
    const bytes = positiveInteger(size, `inputSizes.${name}`);
    if (bytes > MAX_INPUT_BYTES) throw invalid(`plan.inputSizes.${name} is ${bytes} bytes; the input region holds at most ${MAX_INPUT_BYTES}`);
    out[name] = bytes;
  }
  return out;
}

/**
 * Validate a parsed plan document against the kernels this build has (callers pass the catalog's
 * `kernelNames()`: the contract does not import the kernels). Unknown fields are rejected;
 * `native` is added to a list of arms that lacks it (it is every ratio's denominator). Reads
 * nothing but its arguments (no environment), so one plan text means one plan everywhere.
 */
export function parsePlan(json: unknown, kernels: readonly string[]): Plan {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalid(`plan must be a JSON object, got ${describe(json)}`);
  }
  const doc = json as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    if (!(FIELDS as readonly string[]).includes(key)) throw invalid(`plan.${key} is not a plan field; fields are ${FIELDS.join(', ')}`);
  }
  // A plan of user modules only may leave the built-in kernels out (absent or []).
  const modulesOnly = doc['modules'] !== undefined && (doc['kernels'] === undefined || (Array.isArray(doc['kernels']) && doc['kernels'].length === 0));
  const plan: Plan = {
    kernels: modulesOnly ? [] : nameList(doc['kernels'], 'kernels', kernels, 'kernel'),
    arms: nameList(doc['arms'], 'arms', ARM_NAMES, 'arm'),
    policies: policyList(doc['policies']),
    rounds: bounded(doc['rounds'], 'rounds'),
    repeats: bounded(doc['repeats'], 'repeats'),
    jobs: bounded(doc['jobs'], 'jobs'),
    seed: 0,
    schedule: 'sequential',
  };
  if (plan.arms !== 'all' && !plan.arms.includes(NATIVE_ARM)) plan.arms = [NATIVE_ARM, ...plan.arms];
  if (doc['inputs'] !== undefined) {
    const mode = doc['inputs'];
    if (mode !== 'fixed' && mode !== 'varying') throw invalid(`plan.inputs must be "fixed" or "varying", got ${describe(mode)}`);
    plan.inputs = mode;
  }
  if (doc['modules'] !== undefined) {
    plan.modules = parseModules(doc['modules'], kernels, plan.jobs, plan.inputs === 'varying', MAX_INPUT_BYTES);
    if (plan.modules.length === 0 && modulesOnly) throw invalid('plan.kernels and plan.modules are both empty: name at least one kernel or module');
  }
  const kernelCount = planKernels(plan, kernels).length;
  const arms = planArms(plan).length;
  const samples = kernelCount * arms * plan.policies.length * plan.rounds;
  if (samples > PLAN_LIMITS.samples) {
    throw invalid(`plan has ${kernelCount} kernels x ${arms} arms x ${plan.policies.length} policies x ${plan.rounds} rounds = ${samples.toLocaleString('en-US')} samples; at most ${PLAN_LIMITS.samples.toLocaleString('en-US')} in one plan: lower plan.rounds or run fewer kernels, arms or policies`);
  }
  const seed = doc['seed'];
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw invalid(`plan.seed must be an integer from 0 to 4294967295, got ${describe(seed)}`);
  }
  plan.seed = seed;
  if (doc['name'] !== undefined) {
    if (typeof doc['name'] !== 'string') throw invalid(`plan.name must be a string, got ${describe(doc['name'])}`);
    plan.name = doc['name'];
  }
  if (doc['schedule'] !== undefined) {
    const schedule = doc['schedule'];
    if (!SCHEDULES.includes(schedule as Schedule)) throw invalid(`plan.schedule must be "sequential" or "interleaved", got ${describe(schedule)}`);
    plan.schedule = schedule as Schedule;
  }
  if (doc['pageSize'] !== undefined) {
    const size = doc['pageSize'];
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1024 || size > 65536 || (size & (size - 1)) !== 0) {
      throw invalid(`plan.pageSize must be a power of two from 1024 to 65536 bytes, got ${describe(size)}`);
    }
    plan.pageSize = size;
  }
  // Only built-in kernels take a size here: a module's generated inputs give their own.
  if (doc['inputSizes'] !== undefined) plan.inputSizes = inputSizes(doc['inputSizes'], plan.kernels === 'all' ? kernels : plan.kernels);
  if (doc['warmupJobs'] !== undefined) {
    const warmup = doc['warmupJobs'];
    if (typeof warmup !== 'number' || !Number.isSafeInteger(warmup) || warmup < 0) {
      throw invalid(`plan.warmupJobs must be an integer of at least 0, got ${describe(warmup)}`);
    }
    plan.warmupJobs = warmup;
  }
  return plan;
}

/** The kernels a plan runs, "all" expanded to `kernels` (the catalog's names, sorted by name), then its modules' names. */
export function planKernels(plan: Plan, kernels: readonly string[]): string[] {
  const builtIn = plan.kernels === 'all' ? [...kernels] : [...plan.kernels];
  return [...builtIn, ...(plan.modules ?? []).map((m) => m.name)];
}

/** The arms a plan runs in the canonical order (native first), "all" expanded. */
export function planArms(plan: Plan): string[] {
  const wanted = plan.arms === 'all' ? ARM_NAMES : plan.arms;
  return ARM_NAMES.filter((a) => a === NATIVE_ARM || wanted.includes(a));
}
