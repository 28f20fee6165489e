// The validator of a campaign start request (shared/protocol/campaign.ts): every field checked
// and named when wrong, as validate.ts does for runs.
import { BenchfleetError } from '../errors.ts';
import { describeBadMachineName, validMachineName } from '../machine-name.ts';
import type { CampaignRequest } from './campaign.ts';
import { MAX_PLAN_BYTES } from './limits.ts';

export const MAX_CAMPAIGN_RUNS = 100;

function fail(field: string, problem: string): never {
  throw new BenchfleetError('PROTOCOL', `campaign.${field} ${problem}`);
}

function optionalNumber(o: Record<string, unknown>, key: string, check: (v: number) => boolean, what: string): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || !check(v)) fail(key, `must be ${what}`);
  return v;
}

function names(o: Record<string, unknown>, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0 || v.length > 256 || !v.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 128)) fail(key, 'must be a list of names');
  return v as string[];
}

export function validateCampaignRequest(value: unknown): CampaignRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('request', 'must be an object');
  const o = value as Record<string, unknown>;
  const planText = o['planText'];
  if (typeof planText !== 'string' || planText.length > MAX_PLAN_BYTES) fail('planText', `must be a string of at most ${MAX_PLAN_BYTES} characters`);
  const machines = names(o, 'machines');
  if (machines === undefined) fail('machines', 'must name at least one machine');
  const bad = machines.find((m) => !validMachineName(m));
  if (bad !== undefined) throw new BenchfleetError('MACHINE_NAME_INVALID', `campaign.machines: ${describeBadMachineName(bad)}`);
  const whole = (min: number, max: number) => (v: number) => Number.isInteger(v) && v >= min && v <= max;
  const request: CampaignRequest = { planText, machines: [...new Set(machines)] };
  const runs = optionalNumber(o, 'runs', whole(1, MAX_CAMPAIGN_RUNS), `a whole number from 1 to ${MAX_CAMPAIGN_RUNS}`);
  const until = optionalNumber(o, 'until', (v) => v > 0 && v <= 10, 'a fraction above 0 and at most 10 (0.05 for 5%)');
  const maxRuns = optionalNumber(o, 'maxRuns', whole(1, MAX_CAMPAIGN_RUNS), `a whole number from 1 to ${MAX_CAMPAIGN_RUNS}`);
  const maxHours = optionalNumber(o, 'maxHours', (v) => v > 0 && v <= 24 * 366, 'a number of hours above 0');
  const spacingMs = optionalNumber(o, 'spacingMs', whole(0, 7 * 86_400_000), 'whole milliseconds from 0 to a week');
  const jitterMs = optionalNumber(o, 'jitterMs', whole(0, 7 * 86_400_000), 'whole milliseconds from 0 to a week');
  const kernels = names(o, 'kernels');
  const arm = o['arm'];
  if (arm !== undefined && (typeof arm !== 'string' || arm.length === 0 || arm.length > 64)) fail('arm', 'must be an arm name');
  return {
    ...request,
    ...(runs !== undefined ? { runs } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(maxRuns !== undefined ? { maxRuns } : {}),
    ...(maxHours !== undefined ? { maxHours } : {}),
    ...(spacingMs !== undefined ? { spacingMs } : {}),
    ...(jitterMs !== undefined ? { jitterMs } : {}),
    ...(kernels !== undefined ? { kernels } : {}),
    ...(arm !== undefined ? { arm } : {}),
  };
}
