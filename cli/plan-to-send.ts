// What `run` and `campaign start` send: the plan file's bytes with FOLIO_CORPUS_RESET and the
// bytes of its own modules written in (before the coordinator hashes them), checked here so a bad
// plan or a module that breaks the context contract is named by its file, and the machines of
// --machines.
import { kernelNames } from '../kernels/kernel-names.ts';
import { packPlanModules } from '../kernels/user-module/pack.ts';
import { checkPlanModules } from '../kernels/user-module/prepare.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { applyPolicyEnv } from '../shared/plan-policy-env.ts';
import { parsePlan } from '../shared/plan-validate.ts';
import { readInputFile } from './read-input.ts';

export async function planToSend(path: string, machinesOption: string): Promise<{ planText: string; machines: string[] }> {
  const planText = packPlanModules(applyPolicyEnv(new TextDecoder().decode(await readInputFile(path))), path);
  let plan;
  try {
    plan = parsePlan(JSON.parse(planText), kernelNames());
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `${path}: ${errorMessage(error)}`);
  }
  try {
    checkPlanModules(plan.modules);
  } catch (error) {
    throw new BenchfleetError('MODULE_REFUSED', `${path}: ${errorMessage(error)}`);
  }
  const machines = machinesOption.split(',').map((m) => m.trim()).filter(Boolean);
  if (machines.length === 0) throw new BenchfleetError('USAGE', '--machines names no machine');
  return { planText, machines };
}
