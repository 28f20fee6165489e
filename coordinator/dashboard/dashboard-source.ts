// The one narrow interface through which the dashboard reads the coordinator. The dashboard
// never changes anything: it lists agents and runs, finds a run's folder, and hears when
// something changed. coordinator-source.ts adapts the coordinator to it; anything else that
// keeps runs in the same folder layout (runs/<runId>/<machine>/<policy>.summary.json, plan.json,
// manifest.json) can be shown by implementing it.
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { AgentSummary, RunSummary } from '../../shared/protocol/events.ts';
import type { RunIndex } from '../../store/run-index/run-index.ts';

export type DashboardChange = { kind: 'agents' } | { kind: 'run'; runId: string } | { kind: 'campaign'; campaignId: string };

export interface DashboardSource {
  agents(): AgentSummary[];
  runs(): RunSummary[];
  /** The run's state, or null for an unknown id. */
  run(runId: string): RunSummary | null;
  /** The run's lifecycle state alone, without a copy of its machines; null for an unknown id. */
  runState(runId: string): RunSummary['state'] | null;
  /** The run's folder: plan.json, <machine>/<policy>.jsonl and .summary.json, report.md, manifest.json. */
  runDir(runId: string): string;
  /** Campaigns (a source without any returns none). */
  campaigns?(): CampaignSummary[];
  /** One campaign, or null for an unknown id. */
  campaign?(campaignId: string): CampaignSummary | null;
  /** The run index for the History page; null (or absent) when there is none. */
  runIndex?(): Promise<RunIndex | null>;
  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: (change: DashboardChange) => void): () => void;
}

/** Final states: a run in one of them will not change again once its manifest is written. */
export const FINAL_RUN_STATES: ReadonlySet<RunSummary['state']> = new Set(['completed', 'failed', 'cancelled']);
