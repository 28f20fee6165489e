// Finalizing a run whose machines have all ended: summaries and report, then the final state,
// then the manifest, then the report to followers, each step redoing only what is not done yet,
// so the run ends exactly once. A failure (a full disk) is tried again with a backoff of 1 s
// doubling to 60 s, and the run says so meanwhile (RunSummary.finalizing). A run is final for
// its followers and the file routes once its finalization is through (isFinal, finishedRunDir).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, writeManifest } from '../../analysis/raw/manifest.ts';
import { removeStaleTemporaries } from '../../shared/atomic-file.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { IndexKeeper } from '../../store/run-index/index-keeper.ts';
import { isTerminal } from '../../store/run-schema.ts';
import type { RunStore } from '../../store/run-store.ts';
import { REPORT_FILE, storageErrorCode, writeDerivedFiles } from './finalize-run.ts';
import type { RunLifecycle } from './run-lifecycle.ts';

const log = createLogger('coordinator:runs');

/** A failed finalization is tried again after 1 s, then 2, 4... up to every 60 s. */
const FINALIZE_RETRY_FIRST_MS = 1000;
const FINALIZE_RETRY_MAX_MS = 60_000;

export interface FinalizerOptions {
  store: RunStore;
  lifecycle: RunLifecycle;
  runIndex: IndexKeeper;
  /**
   * Before a run's files are summarized: every record batch of it taken so far is written and
   * counted, and the record path holds nothing of it any more (its handles closed, its plan dropped).
   */
  release: (runId: string) => Promise<void>;
  /** A run's report is written (or could not be): for its followers. */
  onReport: (report: { runId: string; markdown: string; dir: string }) => void;
}

export class RunFinalizer {
  /** What it works with (see FinalizerOptions). */
  private readonly deps: FinalizerOptions;
  private readonly finalizing = new Map<string, Promise<void>>();
  /** Finalizations that failed, waiting for their next attempt. */
  private readonly retries = new Map<string, NodeJS.Timeout>();

  constructor(options: FinalizerOptions) {
    this.deps = options;
  }

  /** Finalize `runId` unless that is under way already (see the top of this file). */
  finalize(runId: string, attempt = 0): void {
    if (this.finalizing.has(runId)) return;
    const task = this.finalizeOnce(runId).then(
      () => this.deps.lifecycle.finalizingProblem(runId, null),
      (error: unknown) => {
        const delayMs = Math.min(FINALIZE_RETRY_MAX_MS, FINALIZE_RETRY_FIRST_MS * 2 ** attempt);
        const problem = `finalizing failed: ${errorMessage(error)}; retrying in ${delayMs / 1000} s`;
        log.error(`run ${runId}: ${problem}`);
        this.deps.lifecycle.finalizingProblem(runId, problem);
        const timer = setTimeout(() => {
          this.retries.delete(runId);
          this.finalizing.delete(runId);
          this.finalize(runId, attempt + 1);
        }, delayMs);
        this.retries.set(runId, timer);
      },
    );
    this.finalizing.set(runId, task);
  }

  private async finalizeOnce(runId: string): Promise<void> {
    const dir = this.deps.store.runDir(runId);
    // A batch taken just before a cancel is written after it: wait, so its lines are counted
    // in run.json and in the summaries, and the sink's handles of the run are closed.
    await this.deps.release(runId);
    let run = this.deps.lifecycle.get(runId);
    if (run.state === 'delivering') {
      try {
        // In worker threads; its progress shows in the run's `summarized` (status, dashboard, followers).
        await writeDerivedFiles(dir, run, (done, total) => {
          this.deps.lifecycle.finalizing(runId, done, total);
          if (done === total || done % 50 === 0) log.info(`run ${runId}: ${done} of ${total} raw files summarized`);
        });
      } catch (error) {
        // A disk that failed is retried; raw files the analysis cannot make a report of are not
        // going to change, so the run ends without one (sendReport says so).
        if (storageErrorCode(error) !== null) throw error;
        log.error(`run ${runId}: could not write summaries and report: ${errorMessage(error)}`);
      }
      run = await this.deps.lifecycle.finish(runId);
    }
    // A crash between a write and its rename left a temporary: the run folder ends without it.
    for (const folder of [dir, ...Object.keys(run.machines).map((m) => join(dir, m))]) await removeStaleTemporaries(folder);
    await writeManifest(dir);
    this.deps.runIndex.runFinalized(runId);
    log.info(`run ${runId}: ${run.state}`);
    await this.sendReport(runId);
  }

  /** The run's report (or word that none could be written) to its followers. */
  async sendReport(runId: string): Promise<void> {
    let markdown: string;
    try {
      markdown = await readFile(join(this.deps.store.runDir(runId), REPORT_FILE), 'utf8');
    } catch {
      markdown = `No report could be written for run ${runId}; see the coordinator's log.\n`;
    }
    this.deps.onReport({ runId, markdown, dir: this.deps.store.runDir(runId) });
  }

  /** Whether the run's manifest is written: the last file its finalization writes. */
  async hasManifest(runId: string): Promise<boolean> {
    return stat(join(this.deps.store.runDir(runId), MANIFEST_FILE)).then(() => true, () => false);
  }

  /** A run that is final once finalization is through, for followers that arrive late. */
  async isFinal(runId: string): Promise<boolean> {
    await this.finalizing.get(runId);
    return isTerminal(this.deps.lifecycle.stateOf(runId)) && (await this.hasManifest(runId));
  }

  /** The folder of a finished run, for the file routes. */
  async finishedRunDir(runId: string): Promise<string> {
    if (!(await this.isFinal(runId))) {
      throw new BenchfleetError('RUN_NOT_FINISHED', `run ${runId} has not finished yet (${this.deps.lifecycle.stateOf(runId)}); its files can be copied once it has (\`benchfleet status\` shows where it stands)`);
    }
    return this.deps.store.runDir(runId);
  }

  /** No retry starts from now on; the finalizations under way end. */
  async close(): Promise<void> {
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    await Promise.allSettled(this.finalizing.values());
  }
}
