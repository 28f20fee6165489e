// The coordinator's hold on its run index: opened (and rebuilt if need be) when the coordinator
// starts, caught up with runs finalized while it was down, and told of each run once its
// manifest is written. The index is derived data: when it cannot be written the run is still
// final and safe in its folder, so a failure here is a warning and never holds finalization
// up; the update is tried again (a `benchfleet reindex` holding the index's write lock for a
// minute, say), and the next start or `benchfleet reindex` makes up for anything still missing.
import { EventEmitter } from 'node:events';
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { RunIndex } from './run-index.ts';

const log = createLogger('coordinator:run-index');
/** Tries of one run's index update, and the wait between them. */
const TRIES = 5;
const RETRY_MS = 30_000;

export class IndexKeeper {
  private readonly dataDir: string;
  private opening: Promise<RunIndex | null> | null = null;
  /** Index updates under way, for close() to wait for. */
  private readonly pending = new Set<Promise<void>>();
  private readonly retries = new Set<NodeJS.Timeout>();
  private closed = false;
  /** `run` with a run id once that run's rows are in the index (runFinalized; not the runs of a catch-up at start). */
  readonly indexed = new EventEmitter<{ run: [runId: string] }>();

  constructor(dataDir: string) {
    this.dataDir = dataDir;
  }

  /** The index, opened on first use; null when it cannot be opened (logged). */
  index(): Promise<RunIndex | null> {
    this.opening ??= (async () => {
      try {
        const index = await RunIndex.open(this.dataDir, { check: true, log });
        const { indexed, removed } = await index.catchUp();
        log.info(`run index caught up: ${indexed.length} run(s) indexed${indexed.length > 0 ? ` (${indexed.join(', ')})` : ''}, ${removed.length} removed, ${index.runCount()} in the index`);
        return index;
      } catch (error) {
        log.warn(`run index ${this.dataDir}: cannot be opened: ${errorMessage(error)}; runs are not indexed until \`benchfleet reindex\` succeeds`);
        return null;
      }
    })();
    return this.opening;
  }

  /** Index a run whose manifest has just been written, without holding the caller up. */
  runFinalized(runId: string, attempt = 1): void {
    const task = (async () => {
      const index = await this.index();
      if (index === null || this.closed) return;
      let done: boolean;
      try {
        done = await index.indexRun(runId);
      } catch (error) {
        const again = attempt < TRIES && !this.closed;
        log.warn(`run ${runId}: not indexed now (${errorMessage(error)}); ${again ? `trying again in ${RETRY_MS / 1000} s` : "it will be at the coordinator's next start, or run `benchfleet reindex`"}`);
        if (!again) return;
        const timer = setTimeout(() => {
          this.retries.delete(timer);
          this.runFinalized(runId, attempt + 1);
        }, RETRY_MS);
        timer.unref();
        this.retries.add(timer);
        return;
      }
      if (!done) return;
      log.info(`run ${runId}: indexed`);
      this.indexed.emit('run', runId);
    })();
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.retries) clearTimeout(timer);
    await Promise.allSettled([...this.pending]);
    (await this.opening)?.close();
  }
}
