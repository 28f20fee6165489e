// What `run` and `campaign start` send: the plan file's bytes with FOLIO_CORPUS_RESET written in
// (before the coordinator hashes them), checked here so a bad plan is named by its file, and the
// machines of --machines.
import { kernelNames } from '../kernels/kernel-names.ts';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { applyPolicyEnv } from '../shared/plan-policy-env.ts';
import { parsePlan } from '../shared/plan-validate.ts';
import { readInputFile } from './read-input.ts';

export async function planToSend(path: string, machinesOption: string): Promise<{ planText: string; machines: string[] }> {
  const planText = applyPolicyEnv(new TextDecoder().decode(await readInputFile(path)));
  try {
    parsePlan(JSON.parse(planText), kernelNames());
  } catch (error) {
    throw new BenchfleetError('PLAN_INVALID', `${path}: ${errorMessage(error)}`);
  }
  const machines = machinesOption.split(',').map((m) => m.trim()).filter(Boolean);
  if (machines.length === 0) throw new BenchfleetError('USAGE', '--machines names no machine');
  return { planText, machines };
}
