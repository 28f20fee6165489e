// The agent's disk copy of each run: STATE/runs/<runId>/ holds plan.json (the bytes the
// coordinator sent), out/<policy>.jsonl (written by the harness, line by line, before any line
// is sent) and status.json. The harness's own files are the spool: a line stays on disk after
// it is acknowledged, so nothing the coordinator has not confirmed can be lost, and resending
// after a reconnect reads straight from them.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../shared/atomic-file.ts';
import { readJsonlFile } from '../shared/jsonl-file.ts';
import type { Policy } from '../shared/policies.ts';
import type { RunFinished } from '../shared/protocol/events.ts';

export interface SpoolStatus {
  runId: string;
  planSha256: string;
  policies: Policy[];
  /** running: the harness is (or was, if the agent died) running; finished: `finished` is set. */
  state: 'running' | 'finished';
  finished: RunFinished | null;
  /** True once the coordinator acknowledged `run:finished`. */
  delivered: boolean;
}

export class RunSpool {
  readonly stateDir: string;
  constructor(stateDir: string) {
    this.stateDir = stateDir;
  }

  runDir(runId: string): string {
    return join(this.stateDir, 'runs', runId);
  }

  outDir(runId: string): string {
    return join(this.runDir(runId), 'out');
  }

  planPath(runId: string): string {
    return join(this.runDir(runId), 'plan.json');
  }

  rawPath(runId: string, policy: Policy): string {
    return join(this.outDir(runId), `${policy}.jsonl`);
  }

  /** Whether this spool has a run of this id (status.json written), delivered or not. */
  async has(runId: string): Promise<boolean> {
    return stat(join(this.runDir(runId), 'status.json')).then(() => true, () => false);
  }

  async create(status: SpoolStatus, planText: string): Promise<void> {
    await mkdir(this.runDir(status.runId), { recursive: true });
    await writeFile(this.planPath(status.runId), planText);
    await this.save(status);
  }

  async save(status: SpoolStatus): Promise<void> {
    await writeFileAtomic(join(this.runDir(status.runId), 'status.json'), `${JSON.stringify(status, null, 2)}\n`);
  }

  /** Every run whose end the coordinator has not yet acknowledged. */
  async undelivered(): Promise<SpoolStatus[]> {
    const out: SpoolStatus[] = [];
    let names: string[];
    try {
      names = await readdir(join(this.stateDir, 'runs'));
    } catch {
      return out;
    }
    for (const name of names.sort()) {
      try {
        const status = JSON.parse(await readFile(join(this.runDir(name), 'status.json'), 'utf8')) as SpoolStatus;
        if (!status.delivered) out.push(status);
      } catch {
        // Not a run folder the agent finished creating.
      }
    }
    return out;
  }

  /** The complete lines of one policy file from `fromSeq` on (a torn last line is not complete). */
  async readLines(runId: string, policy: Policy, fromSeq = 0): Promise<string[]> {
    // After the last newline: nothing, or a line the harness is still writing.
    const file = await readJsonlFile(this.rawPath(runId, policy));
    return file === null ? [] : file.lines.slice(fromSeq);
  }

  /** Complete lines of each policy file of a run, as `run:finished` reports them. */
  async lineCounts(runId: string, policies: readonly Policy[]): Promise<RunFinished['lines']> {
    const lines: RunFinished['lines'] = {};
    for (const p of policies) lines[p] = (await this.readLines(runId, p)).length;
    return lines;
  }
}
