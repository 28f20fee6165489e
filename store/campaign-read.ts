// A campaign as `campaign report` shows it: its campaign.json, with its cells computed anew from
// its runs' files (what the coordinator computed after its last run). Read by `campaign report
// --data` on the data folder and by the coordinator for `campaign report --coordinator`, which
// passes its worker-thread comparison so that the bootstraps never hold up its event loop.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareCampaignRuns, type CampaignCompareOptions, type CampaignRunFolder } from '../analysis/campaign/campaign-compare.ts';
import type { Comparison } from '../analysis/compare/compare-types.ts';
import { cellProgress } from '../analysis/campaign/stop-rule.ts';
import { BenchfleetError } from '../shared/errors.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';
import { CampaignStore, parseStoredCampaign } from './campaign-store.ts';
import { parseStoredRun } from './run-schema.ts';

/** How a campaign's runs are compared: compareCampaignRuns on this thread, or the same in a worker. */
export type CampaignComparer = (runs: CampaignRunFolder[], options: CampaignCompareOptions) => Promise<Comparison>;

export async function readCampaign(dataDir: string, id: string, compare: CampaignComparer = compareCampaignRuns): Promise<CampaignSummary> {
  const store = new CampaignStore(dataDir);
  const file = join(store.campaignDir(id), 'campaign.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new BenchfleetError('UNKNOWN_CAMPAIGN', `no campaign ${id} in ${store.dir}; \`benchfleet campaign list\` lists them`);
  }
  const { schema: _schema, pendingRunId: _pending, evaluatedRuns: _evaluated, ...campaign } = parseStoredCampaign(JSON.parse(text), file);
  const folders: CampaignRunFolder[] = [];
  for (const r of campaign.runs) {
    const dir = join(dataDir, 'runs', r.runId);
    const run = parseStoredRun(JSON.parse(await readFile(join(dir, 'run.json'), 'utf8')), join(dir, 'run.json'));
    if (run.state === 'completed' || run.state === 'failed' || run.state === 'cancelled') folders.push({ dir, completed: Object.entries(run.machines).filter(([, m]) => m.state === 'completed').map(([m]) => m) });
  }
  if (folders.some((f) => f.completed.length > 0)) campaign.cells = cellProgress(await compare(folders, { arm: campaign.rule.arm, target: campaign.rule.until }), campaign.rule.until, campaign.rule.kernels);
  return campaign;
}
