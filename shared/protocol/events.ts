// The wire protocol between the coordinator, its agents and control clients (the CLI), as
// typed socket.io event maps. Two namespaces: `/agent` for benchmark hosts and `/control` for
// the CLI. docs/protocol.md describes every event for people writing an agent of their own.
// Every payload that arrives passes a validator in validate.ts before anything trusts it.
import type { MacosFacts } from '../macos-facts.ts';
import type { Policy } from '../policies.ts';
import type { AnalysisAnswer, CompareRunsRequest, HistoryRequest, ReportAnswer, ReportRequest } from './analysis-requests.ts';
import type { CampaignRequest, CampaignSummary } from './campaign.ts';
import type { LifecycleState } from './lifecycle-state.ts';
import type { Failure } from './failure.ts';

/**
 * The wire protocol's version; both ends must speak the same one (docs/protocol.md, "Versions").
 * 2: the token moved from the handshake's auth payload to the upgrade request's Authorization
 * header, run files to HTTP(S) routes, and refusals carry `{ code, message }`.
 */
export const PROTOCOL_VERSION = 2;
export const AGENT_NAMESPACE = '/agent';
export const CONTROL_NAMESPACE = '/control';

/** What a machine says about itself when it connects; shown by `status`, compared across a run. */
export interface MachineFacts {
  cpuModel: string;
  cores: number;
  platform: string;
  osRelease: string;
  arch: string;
  node: string;
  v8: string;
  governor: string | null;
  loadAverage: [number, number, number];
  harnessSha256: string;
  /** SHA256 of every corpus module, by kernel name. */
  corpus: Record<string, string>;
  /**
   * SHA256 of every kernel's tracked twin (the module the `tracked` policy runs), by kernel name;
   * a kernel without a twin in the agent's corpus (one built before twins existed) is absent.
   */
  trackedCorpus: Record<string, string>;
  /** macOS agents only: core kinds, power source, Low Power Mode, thermal limit (shared/macos-facts.ts). */
  macos?: MacosFacts;
}

/**
 * Handshake `auth` of an agent. The token is not in here: it goes in the HTTP upgrade request's
 * `Authorization: Bearer TOKEN` header, checked before socket.io reads a single frame.
 */
export interface AgentAuth {
  protocol: number;
  name: string;
  facts: MachineFacts;
}

/** Handshake `auth` of a control client (the token is in the Authorization header, as for agents). */
export interface ControlAuth {
  protocol: number;
}

/** A run assigned to one machine: the plan's exact bytes and their SHA256. */
export interface RunAssignment {
  runId: string;
  machine: string;
  planText: string;
  planSha256: string;
}

/** Where the coordinator's copy of one machine's run stands: the next line it expects per policy. */
export interface ResumePoint {
  runId: string;
  /** Per policy, the seq of the next record line the coordinator expects (0 = the environment row). */
  next: Partial<Record<Policy, number>>;
  /** False when the coordinator no longer wants records for this run (unknown, or this machine completed, failed or was cancelled). */
  wanted: boolean;
  /** This machine's state in the run (absent when the run is unknown); "cancelled" tells the agent to stop its harness. */
  state?: LifecycleState;
  /** Why, when not wanted (e.g. "cancelled by a control client"). */
  message?: string;
}

/**
 * A batch of raw record lines of one (run, policy), msgpackr-encoded on the wire.
 * `lines[i]` has seq `fromSeq + i`; lines are the harness's JSONL lines without the newline.
 */
export interface RecordBatch {
  runId: string;
  policy: Policy;
  fromSeq: number;
  lines: string[];
  /**
   * The machine's latest progress in the run, when the agent had a report not yet sent: taken
   * as a `run:progress` of the same run once the batch is handled, so a machine whose lines flow
   * needs no `run:progress` of its own (shared/protocol/progress-pacer.ts).
   */
  progress?: BatchProgress;
}

/** A `run:progress` riding on a record batch: the batch names the run. */
export type BatchProgress = Omit<RunProgress, 'runId'>;

/** `next` on a refusal: where the coordinator's copy ends, so the agent resends from there (null when unknown). */
export type BatchAck = { ok: true; next: number } | (Failure & { next: number | null });

export interface RunProgress {
  runId: string;
  done: number;
  total: number;
  /** Set while the machine waits before measuring: why (timing lock held, load too high). */
  waiting?: string;
}

export interface RunFinished {
  runId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** Lines per policy file, environment row included, as the agent has them. */
  lines: Partial<Record<Policy, number>>;
  message?: string;
}

/** Every answer: a value, or a refusal with a code of shared/errors.ts and one line saying why. */
export type Ack<T> = { ok: true; value: T } | Failure;

export type AgentToCoordinator = {
  /** Records, msgpackr-encoded RecordBatch; acknowledged only after the coordinator has written them. */
  'records': (batch: Uint8Array, ack: (result: BatchAck) => void) => void;
  'run:progress': (progress: RunProgress) => void;
  'run:finished': (finished: RunFinished, ack: (result: Ack<null>) => void) => void;
  /** Sent after (re)connecting for each run the agent still holds records of. */
  'run:resume': (runId: string, ack: (result: Ack<ResumePoint>) => void) => void;
  /** Periodic liveness and load; no answer. */
  'agent:heartbeat': (heartbeat: AgentHeartbeat) => void;
};

export type CoordinatorToAgent = {
  'run:assign': (assignment: RunAssignment, ack: (result: Ack<null>) => void) => void;
  'run:cancel': (runId: string) => void;
};

export interface AgentSummary {
  name: string;
  state: 'idle' | 'running' | 'offline';
  facts: MachineFacts;
  /** When the coordinator last heard from the agent (handshake, records, progress, heartbeat). */
  lastSeen: string;
  /** The latest load average the agent reported (heartbeat, else its handshake). */
  load: [number, number, number];
  runId: string | null;
}

/** Sent by the agent every HEARTBEAT_INTERVAL_MS: it is alive, and how loaded its machine is. */
export interface AgentHeartbeat {
  loadAverage: [number, number, number];
}

export const HEARTBEAT_INTERVAL_MS = 15_000;

export type { LifecycleState } from './lifecycle-state.ts';

export interface MachineRunState {
  state: LifecycleState;
  done: number;
  total: number;
  /** Record lines written per policy file (environment row included). */
  lines: Partial<Record<Policy, number>>;
  message: string | null;
  /** Why the machine has not started measuring yet (timing lock held, load wait); not stored. */
  waiting?: string | null;
  /** While queued: the machine's place in its queue of runs (1: it starts this run next, once free). */
  queue?: number;
}

export interface RunSummary {
  runId: string;
  /** queued: one of a series (`run --runs K`) waiting for the run named by `after`. */
  state: LifecycleState;
  /** The run this one starts after, in a series of back-to-back runs; null for the first. */
  after?: string | null;
  createdAt: string;
  planSha256: string;
  /** When a control client cancelled the run, if one did. */
  cancelledAt?: string | null;
  machines: Record<string, MachineRunState>;
  /**
   * Why the run is still delivering after its machines ended: its finalization failed and is
   * retried, e.g. "finalizing failed: ENOSPC ...; retrying in 8 s". Absent otherwise; not stored.
   */
  finalizing?: string;
  /** While a delivering run's summaries are written: how many of its raw files are summarized, of all (not stored). */
  summarized?: { done: number; total: number };
}

/** The answer to run:start: the runs queued, and where the first waits on machines that were busy. */
export interface RunStarted {
  runId: string;
  runIds: string[];
  planSha256: string;
  /** Machines on which the first run is queued behind other runs, with its place in their queue (1: next). */
  queue: Record<string, number>;
}

export type ControlToCoordinator = {
  /** Start `runs` (default 1) back-to-back runs of one plan; each machine queues them behind the runs it already has. */
  'run:start': (request: { planText: string; machines: string[]; runs?: number }, ack: (result: Ack<RunStarted>) => void) => void;
  'status': (ack: (result: Ack<{ agents: AgentSummary[]; runs: RunSummary[] }>) => void) => void;
  'run:follow': (runId: string, ack: (result: Ack<RunSummary>) => void) => void;
  'run:cancel': (runId: string, ack: (result: Ack<RunSummary>) => void) => void;
  /** Start a campaign: runs of one plan, one after the other, until its stop rule holds (shared/protocol/campaign.ts). */
  'campaign:start': (request: CampaignRequest, ack: (result: Ack<CampaignSummary>) => void) => void;
  'campaign:list': (ack: (result: Ack<CampaignSummary[]>) => void) => void;
  /** The campaign as it stands; campaign:update events follow until it has finished or been cancelled. */
  'campaign:follow': (campaignId: string, ack: (result: Ack<CampaignSummary>) => void) => void;
  /** Stop a campaign: no further run starts, and its run in progress is cancelled. */
  'campaign:cancel': (campaignId: string, ack: (result: Ack<CampaignSummary>) => void) => void;
  /** Forget a retired machine (refused while it is online or a run needs it); answers the agents left. */
  'agents:forget': (name: string, ack: (result: Ack<AgentSummary[]>) => void) => void;
  /** One plan's history from the coordinator's run index: a HistoryView (analysis/history/history-types.ts). */
  'history': (request: HistoryRequest, ack: (result: Ack<AnalysisAnswer>) => void) => void;
  /** Runs of the coordinator's data folder compared: a Comparison (analysis/compare/compare-types.ts). */
  'compare': (request: CompareRunsRequest, ack: (result: Ack<AnalysisAnswer>) => void) => void;
  /** A campaign with its cells computed anew from its runs' files: what `campaign report --data` reads. */
  'campaign:report': (campaignId: string, ack: (result: Ack<CampaignSummary>) => void) => void;
  /** The study's table of runs of the coordinator's data folder: the Reports `report` renders (every arm for "all"). */
  'report': (request: ReportRequest, ack: (result: Ack<ReportAnswer>) => void) => void;
};

export type CoordinatorToControl = {
  'run:update': (run: RunSummary) => void;
  /** The run's report (report.md) once every machine has finished. */
  'run:report': (report: { runId: string; markdown: string; dir: string }) => void;
  /** A followed campaign changed: a run started or ended, the stop rule decided, it finished. */
  'campaign:update': (campaign: CampaignSummary) => void;
};
