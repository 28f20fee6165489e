// FOLIO_CORPUS_RESET, the study scripts' variable naming the reset policies, for people coming
// from those scripts: `run` and `harness` write it into a plan that names no policies, once,
// before the plan is hashed or sent. So a plan hash always means one set of policies, and the
// validator (plan-validate.ts) never reads the environment.
import { BenchfleetError } from './errors.ts';
import { POLICIES, isPolicy } from './policies.ts';

export const POLICY_ENV = 'FOLIO_CORPUS_RESET';

/**
 * The plan text to use: unchanged (byte for byte) when the plan names its policies or the
 * variable is unset; otherwise the plan re-serialized with `policies` from the variable.
 * Text that is not a JSON object is returned as it is, for the validator to refuse.
 */
export function applyPolicyEnv(planText: string, env: NodeJS.ProcessEnv = process.env): string {
  const raw = env[POLICY_ENV]?.trim();
  if (!raw) return planText;
  let doc: unknown;
  try {
    doc = JSON.parse(planText);
  } catch {
    return planText;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return planText;
  const named = (doc as Record<string, unknown>)['policies'];
  if (named !== undefined && !(Array.isArray(named) && named.length === 0)) return planText;
  const names = raw.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!isPolicy(name)) throw new BenchfleetError('PLAN_INVALID', `${POLICY_ENV}="${raw}": "${name}" is not a policy; policies are ${POLICIES.join(', ')}`);
  }
  return `${JSON.stringify({ ...doc, policies: [...new Set(names)] }, null, 2)}\n`;
}
