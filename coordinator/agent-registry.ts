// The agents the coordinator knows: their facts, whether they are connected, when they were
// last seen and which run they are on. Persisted to DIR/agents.json so that `status` after a
// restart still lists machines that have not reconnected yet.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../shared/atomic-file.ts';
import type { AgentSummary, MachineFacts } from '../shared/protocol/events.ts';

interface AgentEntry {
  name: string;
  facts: MachineFacts;
  lastSeen: string;
  connectionId: string | null;
  runId: string | null;
}

export class AgentRegistry {
  private readonly agents = new Map<string, AgentEntry>();
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'agents.json');
  }

  async load(): Promise<void> {
    try {
      const stored = JSON.parse(await readFile(this.file, 'utf8')) as AgentSummary[];
      for (const a of stored) this.agents.set(a.name, { name: a.name, facts: a.facts, lastSeen: a.lastSeen, connectionId: null, runId: null });
    } catch {
      // No agents yet.
    }
  }

  private async save(): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(this.list(), null, 2)}\n`);
  }

  /** The connection id of the agent currently connected under `name`, if any. */
  connectedAs(name: string): string | null {
    return this.agents.get(name)?.connectionId ?? null;
  }

  isOnline(name: string): boolean {
    return this.connectedAs(name) !== null;
  }

  known(name: string): boolean {
    return this.agents.has(name);
  }

  facts(name: string): MachineFacts | null {
    return this.agents.get(name)?.facts ?? null;
  }

  async connected(name: string, facts: MachineFacts, connectionId: string): Promise<void> {
    const previous = this.agents.get(name);
    this.agents.set(name, { name, facts, lastSeen: new Date().toISOString(), connectionId, runId: previous?.runId ?? null });
    await this.save();
  }

  async disconnected(name: string, connectionId: string): Promise<void> {
    const entry = this.agents.get(name);
    if (!entry || entry.connectionId !== connectionId) return;
    entry.connectionId = null;
    entry.lastSeen = new Date().toISOString();
    await this.save();
  }

  seen(name: string): void {
    const entry = this.agents.get(name);
    if (entry) entry.lastSeen = new Date().toISOString();
  }

  setRun(name: string, runId: string | null): void {
    const entry = this.agents.get(name);
    if (entry) entry.runId = runId;
  }

  list(): AgentSummary[] {
    return [...this.agents.values()]
      .map((a) => ({
        name: a.name,
        state: a.connectionId === null ? ('offline' as const) : a.runId ? ('running' as const) : ('idle' as const),
        facts: a.facts,
        lastSeen: a.lastSeen,
        runId: a.runId,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}
