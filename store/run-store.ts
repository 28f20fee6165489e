// The run folders on disk: DIR/runs/<runId>/ with plan.json (the plan's exact bytes), run.json
// (the run's state, written only by the run lifecycle), and one folder per machine for its raw
// files. This module knows paths and files, not what a run's state means.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { makeFolderDurable, syncFolder, writeFileAtomic } from '../shared/atomic-file.ts';
import type { Policy } from '../shared/policies.ts';
import { parseStoredRun, type RunConfirms, type StoredRun } from './run-schema.ts';

export const RUN_FILE = 'run.json';
export const PLAN_FILE = 'plan.json';

/** Raw file paths remembered (rawPath); forgotten all at once beyond this many. */
const RAW_PATHS_KEPT = 65_536;

export class RunStore {
  readonly dataDir: string;
  readonly runsDir: string;
  /** The record path asks for a raw file's path per batch, thousands of times a second. */
  readonly #rawPaths = new Map<string, string>();
  /** Machine folders createFolder made, until takeMadeFolders. */
  #madeFolders: string[] = [];
  /** What the confirmation runs of this process confirm, by run id (markConfirmation). */
  readonly #confirms = new Map<string, RunConfirms>();

  constructor(dataDir: string) {
    this.dataDir = dataDir;
    this.runsDir = join(dataDir, 'runs');
  }

  runDir(runId: string): string {
    return join(this.runsDir, runId);
  }

  rawPath(runId: string, machine: string, policy: Policy): string {
    const key = `${runId}\u0000${machine}\u0000${policy}`;
    let path = this.#rawPaths.get(key);
    if (path === undefined) {
      if (this.#rawPaths.size >= RAW_PATHS_KEPT) this.#rawPaths.clear();
      path = join(this.runDir(runId), machine, `${policy}.jsonl`);
      this.#rawPaths.set(key, path);
    }
    return path;
  }

  /** The parsed run.json of every run folder; a folder without a readable one is not a run (or was never fully created). */
  async readRunFiles(): Promise<{ runId: string; file: string; json: unknown }[]> {
    await mkdir(this.runsDir, { recursive: true });
    const found: { runId: string; file: string; json: unknown }[] = [];
    for (const entry of await readdir(this.runsDir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = join(this.runsDir, entry.name, RUN_FILE);
      try {
        found.push({ runId: entry.name, file, json: JSON.parse(await readFile(file, 'utf8')) as unknown });
      } catch {
        // Not a run.
      }
    }
    return found;
  }

  /**
   * A new run folder with the plan's exact bytes and a folder per machine, every name and the
   * plan on disk before this resolves (a power cut must not leave a run whose plan is empty).
   */
  async createFolder(runId: string, planText: string, machines: readonly string[]): Promise<void> {
    const dir = this.runDir(runId);
    await makeFolderDurable(dir);
    await writeFileAtomic(join(dir, PLAN_FILE), planText);
    // All at once: a run of a thousand machines is a thousand folders, and run:start waits for
    // them. A folder found there already (a campaign's run created again after a restart) is
    // taken as it is, and is not one this call made.
    const made = await Promise.all(
      machines.map(async (m) => {
        const folder = join(dir, m);
        try {
          await mkdir(folder);
          return folder;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
          throw error;
        }
      }),
    );
    if (made.some((folder) => folder !== null)) await syncFolder(dir);
    for (const folder of made) if (folder !== null) this.#madeFolders.push(folder);
  }

  /** Remove a run folder that never became a run (its series could not be created whole), the removal synced. */
  async removeFolder(runId: string): Promise<void> {
    const dir = this.runDir(runId);
    this.#madeFolders = this.#madeFolders.filter((folder) => !folder.startsWith(`${dir}${sep}`));
    for (const key of this.#rawPaths.keys()) if (key.startsWith(`${runId}\u0000`)) this.#rawPaths.delete(key);
    await rm(dir, { recursive: true, force: true });
    await syncFolder(this.runsDir);
  }

  /** Whether plan.json holds the plan whose SHA-256 the run names: null when it does, else what is wrong. */
  async planProblem(runId: string, planSha256: string): Promise<string | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.runDir(runId), PLAN_FILE));
    } catch (error) {
      return `its ${PLAN_FILE} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
    const found = createHash('sha256').update(bytes).digest('hex');
    return found === planSha256 ? null : `its ${PLAN_FILE} (${bytes.length} bytes, SHA-256 ${found.slice(0, 12)}) is not the run's plan (${planSha256.slice(0, 12)})`;
  }

  /** The machine folders createFolder made since the last call (so each holds no file but what was written since). */
  takeMadeFolders(): string[] {
    const made = this.#madeFolders;
    this.#madeFolders = [];
    return made;
  }

  async planText(runId: string): Promise<string> {
    return readFile(join(this.runDir(runId), PLAN_FILE), 'utf8');
  }

  /**
   * Marks the run about to be created as `runId` a confirmation run: every save of its run.json
   * says what it confirms. The run lifecycle creates runs and owns their state, and knows nothing
   * of confirmation; the mark is made here, before the run exists, so that its first run.json
   * already has it (a crash cannot leave a confirmation run that looks like a scheduled one). A
   * coordinator that restarts reads it back from run.json with the rest of the run.
   */
  markConfirmation(runId: string, confirms: RunConfirms): void {
    this.#confirms.set(runId, confirms);
  }

  /** The run's run.json, validated (what a finished run's state and marks are). */
  async readRun(runId: string): Promise<StoredRun> {
    const file = join(this.runDir(runId), RUN_FILE);
    return parseStoredRun(JSON.parse(await readFile(file, 'utf8')) as unknown, file);
  }

  /** Persist a run's state atomically (write then rename). */
  async saveRun(run: StoredRun): Promise<void> {
    const confirms = run.confirms ?? this.#confirms.get(run.runId);
    await writeFileAtomic(join(this.runDir(run.runId), RUN_FILE), `${JSON.stringify(confirms === undefined ? run : { ...run, confirms }, null, 2)}\n`);
  }
}
