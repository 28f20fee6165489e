// The comparison a campaign's stop rule and report rest on: compare's own loadRuns and
// buildComparison over the campaign's finished runs, each run taken only for the machines that
// completed it. A machine that dropped out of a run (failed, cancelled, never started) leaves
// that run out of its cells, and the campaign says so run by run; its partial files are never
// averaged in.
import { basename } from 'node:path';
import { buildComparison, type RunInput } from '../compare/compare.ts';
import { loadRuns } from '../compare/compare-load.ts';
import type { Comparison } from '../compare/compare-types.ts';

export interface CampaignRunFolder {
  /** The run's folder (its name is the run id). */
  dir: string;
  /** Machines that completed the run: only their files count. */
  completed: readonly string[];
}

export interface CampaignCompareOptions {
  /** The arm the cells are of (compare's --arm); default: the report's arm. */
  arm?: string | null;
  /** The stop rule's target, also compare's recommendation target (0.05 for ±5%). */
  target?: number | null;
}

/** The runs' inputs for compare, each holding only the files of machines that completed it (runs with none are left out). */
export async function campaignInputs(runs: readonly CampaignRunFolder[]): Promise<RunInput[]> {
  const withMachines = runs.filter((r) => r.completed.length > 0);
  const inputs = await loadRuns(withMachines.map((r) => r.dir), undefined);
  return inputs.map((input, i) => {
    const completed = new Set(withMachines[i]?.completed ?? []);
    return { run: basename(withMachines[i]?.dir ?? input.run), files: input.files.filter((f) => completed.has(f.parsed.environment?.machine ?? f.folderMachine)) };
  });
}

export async function compareCampaignRuns(runs: readonly CampaignRunFolder[], options: CampaignCompareOptions = {}): Promise<Comparison> {
  return buildComparison(await campaignInputs(runs), { ...(options.arm ? { arm: options.arm } : {}), ...(options.target ? { target: options.target } : {}) });
}
