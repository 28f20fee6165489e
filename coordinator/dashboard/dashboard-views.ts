// What the dashboard's server sends its pages: the JSON of /api/* and the events of the `/ui`
// socket.io namespace. The pages (web/) and the server (coordinator/dashboard/) agree on these
// types at compile time; the figures inside are the analysis's own types (Report, Comparison),
// so the dashboard shows exactly what `benchfleet report` and `benchfleet compare` compute.
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import type { MachineFacts, MachineRunState, RunSummary } from '../../shared/protocol/events.ts';

export const UI_NAMESPACE = '/ui';

/** One machine's part of a run as the pages show it. */
export interface MachineProgressView {
  name: string;
  state: MachineRunState['state'];
  done: number;
  total: number;
  message: string | null;
  /** Why the machine waits before measuring (timing lock held, load too high); null when it does not. */
  waiting: string | null;
  /** Seconds left at the rate seen since the dashboard first saw this machine progress; null when unknown. */
  etaSeconds: number | null;
  /** While queued: the machine's place in its queue (1: next); null otherwise. */
  queue: number | null;
}

/** A run in the Runs list, and the head of the Run page. */
export interface RunListItem {
  runId: string;
  /** The plan's `name`, free text from whoever wrote the plan. */
  planName: string | null;
  planSha256: string;
  state: RunSummary['state'];
  /** When the run was made (it may then wait in a queue). */
  createdAt: string;
  /** When its first machine started measuring (the earliest environment row), known once the run is finalized; null until then. */
  startedAt: string | null;
  /** When the run's manifest was written (the end of finalization); null until then. */
  finishedAt: string | null;
  /** The campaign the run is one of; null for a run of its own. */
  campaignId: string | null;
  machines: MachineProgressView[];
  /** Samples that failed a check, from the stored summaries; null until they exist. */
  failures: number | null;
  /** Why a delivering run has not finished: its finalization failed and is retried (RunSummary.finalizing); null otherwise. */
  finalizing: string | null;
  /** While a delivering run's summaries are written: raw files summarized, of all (RunSummary.summarized); null otherwise. */
  summarized: { done: number; total: number } | null;
}

export interface FleetAgentView {
  name: string;
  state: 'idle' | 'running' | 'offline';
  lastSeen: string;
  /** The latest load average the agent reported (its heartbeat, else its handshake). */
  load: [number, number, number];
  facts: MachineFacts;
  /** CPUs the machine's last harness was pinned to (from its newest stored environment row); null when unknown or unpinned. */
  affinity: number[] | null;
  /** The run the agent is on, with its progress on this machine. */
  run: { runId: string; progress: MachineProgressView | null } | null;
}

export interface FleetView {
  agents: FleetAgentView[];
}

export interface RunsView {
  runs: RunListItem[];
}

export interface DownloadView {
  /** Path inside the run folder, forward slashes; the file is at /api/runs/<runId>/files/<path>. */
  path: string;
  kind: 'raw' | 'summary' | 'report' | 'plan' | 'manifest' | 'other';
  bytes: number;
}

export interface ManifestStatusView {
  /** verified: every listed file has its length and SHA256; mismatch: some differ; missing: no manifest yet. */
  status: 'verified' | 'mismatch' | 'missing';
  checked: number;
  /** Up to ten differences, one line each. */
  problems: string[];
}

/** The Run page: live progress, and once finalized the study table and charts of every arm. */
export interface RunView {
  run: RunListItem;
  /** One report per pool arm present, the default arm first; empty until the run is finalized. */
  reports: Report[];
  downloads: DownloadView[];
  manifest: ManifestStatusView;
}

/** The Compare page: the runs it was asked for and the comparison `benchfleet compare` prints. */
export interface CompareView {
  runs: string[];
  comparison: Comparison;
}

/** What the static HTML report (`report --html`) embeds: the Run page's figures with no live part. */
/** What the HTML report says about each machine its figures come from (its environment rows). */
export interface ReportMachineView {
  machine: string;
  cpu: string;
  cores: number;
  node: string;
  os: string;
  /** When its earliest run of a policy started: the date of the measurements. */
  startedAt: string;
}

export interface StaticReportView {
  title: string;
  generatedAt: string;
  reports: Report[];
  /** The machines measured, with their facts; absent in a report written before there were any. */
  machines?: ReportMachineView[];
}

/** Events the server pushes to pages on the `/ui` namespace; pages send nothing. */
export type DashboardToUi = {
  fleet: (view: FleetView) => void;
  run: (item: RunListItem) => void;
  /** A campaign changed: a run started or ended, its stop rule decided, it finished. */
  campaign: (campaign: CampaignSummary) => void;
};
