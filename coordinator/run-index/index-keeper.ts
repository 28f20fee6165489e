// The coordinator's hold on its run index: opened (and rebuilt if need be) when the coordinator
// starts, caught up with runs finalized while it was down, and told of each run once its
// manifest is written. The index is derived data: when it cannot be written the run is still
// final and safe in its folder, so a failure here is a warning, and the next start (or
// `benchfleet reindex`) makes up for it.
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { RunIndex } from './run-index.ts';

const log = createLogger('coordinator:run-index');

export class IndexKeeper {
  private readonly dataDir: string;
  private opening: Promise<RunIndex | null> | null = null;

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

  /** Index a run whose manifest has just been written. */
  async runFinalized(runId: string): Promise<void> {
    const index = await this.index();
    if (index === null) return;
    try {
      if (await index.indexRun(runId)) log.info(`run ${runId}: indexed`);
    } catch (error) {
      log.warn(`run ${runId}: not indexed now (${errorMessage(error)}); it will be at the coordinator's next start, or run \`benchfleet reindex\``);
    }
  }

  async close(): Promise<void> {
    (await this.opening)?.close();
  }
}
