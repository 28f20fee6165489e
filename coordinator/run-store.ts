// The coordinator's runs on disk: DIR/runs/<runId>/ holds plan.json (the exact bytes sent to
// every machine), run.json (the run's state) and one folder per machine with its raw files.
// Everything a restarted coordinator needs is read back from here.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../shared/atomic-file.ts';
import { BenchfleetError } from '../shared/errors.ts';
import type { Policy } from '../shared/policies.ts';
import type { MachineRunState, RunSummary } from '../shared/protocol/events.ts';
import { newRunId } from './run-id.ts';

export const RUN_FILE = 'run.json';
export const PLAN_FILE = 'plan.json';

export class RunStore {
  readonly dataDir: string;
  private readonly runs = new Map<string, RunSummary>();

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  get runsDir(): string {
    return join(this.dataDir, 'runs');
  }

  runDir(runId: string): string {
    return join(this.runsDir, runId);
  }

  rawPath(runId: string, machine: string, policy: Policy): string {
    return join(this.runDir(runId), machine, `${policy}.jsonl`);
  }

  /** Read every run back from disk. */
  async load(): Promise<RunSummary[]> {
    await mkdir(this.runsDir, { recursive: true });
    for (const entry of await readdir(this.runsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        const run = JSON.parse(await readFile(join(this.runsDir, entry.name, RUN_FILE), 'utf8')) as RunSummary;
        this.runs.set(run.runId, run);
      } catch {
        // A folder without a readable run.json is not a run (or was never fully created).
      }
    }
    return this.list();
  }

  list(): RunSummary[] {
    return [...this.runs.values()].sort((a, b) => a.runId.localeCompare(b.runId));
  }

  get(runId: string): RunSummary {
    const run = this.runs.get(runId);
    if (!run) throw new BenchfleetError('UNKNOWN_RUN', `no run ${runId} on this coordinator; \`benchfleet status\` lists the runs`);
    return run;
  }

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** A new run folder; `after` queues it behind another run of a series. */
  async create(planText: string, planSha256: string, machines: readonly string[], after: string | null = null): Promise<RunSummary> {
    const runId = newRunId();
    const dir = this.runDir(runId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, PLAN_FILE), planText);
    const machineStates: Record<string, MachineRunState> = {};
    for (const m of machines) {
      await mkdir(join(dir, m), { recursive: true });
      machineStates[m] = { state: 'assigned', done: 0, total: 0, lines: {}, message: null };
    }
    const run: RunSummary = { runId, state: after ? 'queued' : 'running', after, createdAt: new Date().toISOString(), planSha256, machines: machineStates };
    this.runs.set(runId, run);
    await this.save(run);
    return run;
  }

  async planText(runId: string): Promise<string> {
    return readFile(join(this.runDir(runId), PLAN_FILE), 'utf8');
  }

  /** Persist `run` atomically (write then rename). */
  async save(run: RunSummary): Promise<void> {
    await writeFileAtomic(join(this.runDir(run.runId), RUN_FILE), `${JSON.stringify(run, null, 2)}\n`);
  }
}
