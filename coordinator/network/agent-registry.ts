// The agents the coordinator knows: their facts, whether they are connected, when they were
// last heard from and their latest load average (from heartbeats). Persisted to
// DIR/agents.json so that `status` after a restart still lists machines that have not
// reconnected yet, and a machine's deadline counts from when it was last heard. Which run a
// machine works on is not kept here: the run lifecycle owns that.
//
// The list is bounded, so that names do not pile up for ever (a flood of made-up names once
// left 1,025 agents listed): an agent offline for more than FORGET_AFTER_DAYS is forgotten,
// and beyond MAX_AGENTS the offline ones last heard from longest ago are forgotten first, each
// with a log line. An online agent, or one a run still needs (`keep`), is never forgotten; a
// retired machine can be forgotten at once with `benchfleet agents forget NAME`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../shared/atomic-file.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { CoalescedWork } from '../../shared/coalesced-work.ts';
import { createLogger } from '../../shared/log.ts';
import { FORGET_AFTER_DAYS, MAX_AGENTS } from '../../shared/agent-limits.ts';
import type { AgentSummary, MachineFacts } from '../../shared/protocol/events.ts';

const log = createLogger('coordinator:agents');

/** How often lastSeen is written to disk while records and heartbeats keep arriving. */
const SAVE_EVERY_MS = 30_000;

/** A stored or listed lastSeen: ISO 8601 (an unreadable one read from disk stays unreadable). */
function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : 'unknown';
}

export interface RegistryOptions {
  /** A machine a run still needs (queued, assigned, running or delivering): never forgotten. */
  keep?: (name: string) => boolean;
  maxAgents?: number;
  forgetAfterDays?: number;
  /** false: no bound applies until startBounds() (the coordinator, until its runs are loaded and `keep` can answer). Default true. */
  bounded?: boolean;
  now?: () => number;
}

interface AgentEntry {
  name: string;
  facts: MachineFacts;
  /** When last heard from, ms since the epoch (a number: it is set on every message of a busy fleet). */
  lastSeen: number;
  load: [number, number, number];
  connectionId: string | null;
}

export class AgentRegistry {
  private readonly agents = new Map<string, AgentEntry>();
  private readonly file: string;
  /** One save in flight; a save asked for meanwhile is made once it ends, with the state as it is then. */
  private readonly saves = new CoalescedWork(async () => {
    const list = JSON.stringify(this.list(() => null));
    this.writes++;
    await writeFileAtomic(this.file, `${list}\n`).catch((error: unknown) => log.error(`could not save ${this.file}: ${errorMessage(error)}`));
  });
  private lastSave = 0;
  /** Writes of agents.json made so far (the log and tests read it). */
  writes = 0;
  private readonly keep: (name: string) => boolean;
  /**
   * Whether the bounds apply yet: not before the runs are loaded (startBounds), when `keep`
   * cannot know which machines a run needs and the agents of a running fleet reconnect at once.
   */
  private bounded: boolean;
  private readonly maxAgents: number;
  private readonly forgetAfterMs: number;
  private readonly now: () => number;

  constructor(dataDir: string, options: RegistryOptions = {}) {
    this.file = join(dataDir, 'agents.json');
    this.keep = options.keep ?? (() => false);
    this.bounded = options.bounded ?? true;
    this.maxAgents = options.maxAgents ?? MAX_AGENTS;
    this.forgetAfterMs = (options.forgetAfterDays ?? FORGET_AFTER_DAYS) * 86_400_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Forget a retired machine: it leaves `status` and the Fleet page (its runs stay). Refused
   * for an agent that is online or that a run still needs.
   */
  forget(name: string): Promise<void> {
    const entry = this.agents.get(name);
    if (!entry) throw new BenchfleetError('UNKNOWN_MACHINE', `no agent ${name} is known to this coordinator; \`benchfleet status\` lists them`);
    if (entry.connectionId !== null) throw new BenchfleetError('MACHINE_BUSY', `agent ${name} is online; stop it first (its service, or Ctrl-C), then forget it`);
    if (this.keep(name)) throw new BenchfleetError('MACHINE_BUSY', `agent ${name} has an unfinished run; wait for it to end or cancel it (\`benchfleet cancel RUN\`), then forget it`);
    this.agents.delete(name);
    log.info(`forgot agent ${name} (asked for; last seen ${iso(entry.lastSeen)})`);
    return this.save();
  }

  /** Apply the bounds (module comment); true when an agent was forgotten. */
  private prune(): boolean {
    if (!this.bounded) return false;
    const now = this.now();
    const forgettable = [...this.agents.values()].filter((a) => a.connectionId === null && !this.keep(a.name)).sort((a, b) => a.lastSeen - b.lastSeen || (a.name < b.name ? -1 : 1));
    let over = this.agents.size - this.maxAgents;
    let forgot = false;
    for (const a of forgettable) {
      // An unreadable date (NaN) counts as long ago.
      const stale = !(now - a.lastSeen <= this.forgetAfterMs);
      if (!stale && over <= 0) break;
      this.agents.delete(a.name);
      over--;
      forgot = true;
      log.warn(`forgot agent ${a.name}, last seen ${iso(a.lastSeen)}: ${stale ? `offline for more than ${this.forgetAfterMs / 86_400_000} days` : `this coordinator lists at most ${this.maxAgents} agents, and it was the one heard from longest ago`}`);
    }
    return forgot;
  }

  async load(): Promise<void> {
    try {
      const stored = JSON.parse(await readFile(this.file, 'utf8')) as AgentSummary[];
      for (const a of stored) this.agents.set(a.name, { name: a.name, facts: a.facts, lastSeen: Date.parse(a.lastSeen), load: a.load ?? a.facts.loadAverage, connectionId: null });
    } catch {
      // No agents yet.
    }
    if (this.prune()) await this.save();
  }

  /** The runs are loaded (`keep` answers): apply the bounds now and at every connect from here on. */
  async startBounds(): Promise<void> {
    this.bounded = true;
    if (this.prune()) await this.save();
  }

  /**
   * Coalesced saves: one write in flight; any number of saves asked for meanwhile become one
   * more write of the latest state once it ends (a thousand connects are a handful of writes,
   * not a thousand strings of the whole list). Compact JSON. Resolves once a write that started
   * after this call has ended.
   */
  private save(): Promise<void> {
    this.lastSave = Date.now();
    return this.saves.request();
  }

  /** Every save asked for so far has ended. */
  settled(): Promise<void> {
    return this.saves.settled();
  }

  connectedAs(name: string): string | null {
    return this.agents.get(name)?.connectionId ?? null;
  }

  isOnline(name: string): boolean {
    return this.connectedAs(name) !== null;
  }

  known(name: string): boolean {
    return this.agents.has(name);
  }

  /** When `name` was last heard from (ms since the epoch), or null for an unknown agent. */
  lastSeen(name: string): number | null {
    return this.agents.get(name)?.lastSeen ?? null;
  }

  connected(name: string, facts: MachineFacts, connectionId: string): Promise<void> {
    this.agents.set(name, { name, facts, lastSeen: this.now(), load: facts.loadAverage, connectionId });
    this.prune();
    return this.save();
  }

  disconnected(name: string, connectionId: string): Promise<void> {
    const entry = this.agents.get(name);
    if (!entry || entry.connectionId !== connectionId) return Promise.resolve();
    entry.connectionId = null;
    entry.lastSeen = this.now();
    return this.save();
  }

  /** Heard from `name` (records, progress, a heartbeat); `load` when it said its load average. */
  seen(name: string, load?: [number, number, number]): void {
    const entry = this.agents.get(name);
    if (!entry) return;
    entry.lastSeen = this.now();
    if (load) entry.load = load;
    if (Date.now() - this.lastSave > SAVE_EVERY_MS) void this.save();
  }

  list(activeRun: (name: string) => string | null): AgentSummary[] {
    return [...this.agents.values()]
      .map((a) => {
        const runId = a.connectionId === null ? null : activeRun(a.name);
        return {
          name: a.name,
          state: a.connectionId === null ? ('offline' as const) : runId ? ('running' as const) : ('idle' as const),
          facts: a.facts,
          lastSeen: iso(a.lastSeen),
          load: a.load,
          runId,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
