// What the dashboard's server sends its pages: the JSON of /api/* and the events of the `/ui`
// socket.io namespace. The pages (web/) and the server (coordinator/dashboard/) agree on these
// types at compile time; the figures inside are the analysis's own types (Report, Comparison),
// so the dashboard shows exactly what `benchfleet report` and `benchfleet compare` compute.
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { Comparison } from '../../analysis/compare/compare-types.ts';
import type { AcrossMachines } from '../../analysis/report/across-machines.ts';
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

/** Machines of a run per state (states no machine is in are left out). */
export type MachineStateCounts = Partial<Record<MachineRunState['state'], number>>;

/**
 * A run in the Runs list, and the head of the Run page. Its size does not grow with the run's
 * machines: it names the first few and counts them all; the Run page pages through the rest.
 */
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
  /** The first MACHINES_IN_ITEM machines by name, with their progress; `machineCount` says how many there are. */
  machines: MachineProgressView[];
  /** Every machine of the run. */
  machineCount: number;
  /** How many machines are in each state. */
  machineStates: MachineStateCounts;
  /** Samples done and planned, summed over every machine. */
  done: number;
  total: number;
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
  /** Newest first, at most MAX_LISTED_RUNS. */
  runs: RunListItem[];
  /** Older runs left out of `runs` (the run index and `npx benchfleet history` have them all). */
  omitted: number;
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

/**
 * One page of a run's machines (`GET /api/runs/<runId>/machines?offset=&limit=&arm=`): their
 * progress, their files, and once the run is finalized the study table of one arm for them.
 */
export interface MachinePageView {
  /** Index of the page's first machine among the run's machines, sorted by name. */
  offset: number;
  /** Machines a page holds: as asked (at most MAX_PAGE_MACHINES), fewer when more would pass MAX_RUN_ANSWER_BYTES. */
  limit: number;
  /** Every machine of the run. */
  total: number;
  machines: MachineProgressView[];
  /** The arm `report` and `acrossMachines` show; null until the run is finalized. */
  arm: string | null;
  /**
   * The arm's study table for this page's machines only (its rows, machines and sources); its
   * notes, footer and failedSamples are the whole run's. Null until the run is finalized.
   */
  report: Report | null;
  /** The arm per kernel and policy across every machine of the run; null until finalized. */
  acrossMachines: AcrossMachines | null;
  /** The files the manifest lists in this page's machine folders. */
  downloads: DownloadView[];
}

/** The Run page: the run's head, and its first page of machines. */
export interface RunView {
  run: RunListItem;
  /** The pool arms with figures, the default arm first; empty until the run is finalized. */
  arms: string[];
  /** The first machines, and the default arm's figures. */
  page: MachinePageView;
  /** The files the manifest lists outside the machine folders (plan, report), and the manifest. */
  downloads: DownloadView[];
  manifest: ManifestStatusView;
}

/** Machines a RunListItem lists by name. */
export const MACHINES_IN_ITEM = 8;
/** Machines a page holds unless asked for fewer, and at most. */
export const DEFAULT_PAGE_MACHINES = 20;
export const MAX_PAGE_MACHINES = 50;
/** Runs the Runs list holds, newest first. */
export const MAX_LISTED_RUNS = 1000;
/** The size a Run page answer is kept under (a page shrinks to fit): the 1 MB. */
export const MAX_RUN_ANSWER_BYTES = 1_000_000;
/** Every API answer's hard cap: a larger answer is refused (500, ANSWER_TOO_LARGE), never sent. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

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
