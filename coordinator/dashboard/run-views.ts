// The data of the Runs, Run and Fleet pages, from the run's state and its stored files only:
// plan.json for the plan's name, the finalized <machine>/<policy>.summary.json files for the
// tables, manifest.json for the downloads. Nothing is analyzed again: what a finalized run's
// files say is read once and kept, since a finalized run does not change.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, readManifest, verifyManifest } from '../../analysis/raw/manifest.ts';
import { reportsForEveryArm } from '../../analysis/report/report-arms.ts';
import type { LoadedResult } from '../../analysis/raw/result-folders.ts';
import { readSummaryFile } from '../../analysis/summary/summary-io.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';
import type { DownloadView, FleetView, ManifestStatusView, RunListItem, RunView } from './dashboard-views.ts';
import { FINAL_RUN_STATES, type DashboardSource } from './dashboard-source.ts';
import { ProgressClock } from './progress-clock.ts';
import { confinedPath } from '../network/request-path.ts';

const log = createLogger('dashboard');
const MAX_MANIFEST_PROBLEMS = 10;

/** What a finalized run's files say; read once. */
interface Finalized {
  finishedAt: string;
  /** When the run's first machine started measuring (its earliest environment row); null without one. */
  startedAt: string | null;
  failures: number;
  reports: Report[];
  downloads: DownloadView[];
  /** Per machine, the pinning of its newest environment row in this run. */
  affinity: Map<string, number[] | null>;
}

export class RunViews {
  private readonly source: DashboardSource;
  private readonly clock = new ProgressClock();
  private readonly planNames = new Map<string, Promise<string | null>>();
  private readonly finalized = new Map<string, Promise<Finalized | null>>();
  private readonly manifests = new Map<string, Promise<ManifestStatusView>>();

  constructor(source: DashboardSource) {
    this.source = source;
  }

  async list(): Promise<RunListItem[]> {
    const runs = this.source.runs().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return Promise.all(runs.map((run) => this.item(run)));
  }

  async item(run: RunSummary): Promise<RunListItem> {
    const finalized = await this.finalizedOf(run);
    return {
      runId: run.runId,
      planName: await this.planName(run.runId),
      planSha256: run.planSha256,
      state: run.state,
      createdAt: run.createdAt,
      startedAt: finalized?.startedAt ?? null,
      finishedAt: finalized?.finishedAt ?? null,
      campaignId: this.source.campaigns?.().find((c) => c.runs.some((r) => r.runId === run.runId))?.campaignId ?? null,
      failures: finalized?.failures ?? null,
      finalizing: run.finalizing ?? null,
      summarized: run.summarized ?? null,
      machines: Object.entries(run.machines)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, m]) => ({
          name,
          state: m.state,
          done: m.done,
          total: m.total,
          message: m.message,
          waiting: m.waiting ?? null,
          etaSeconds: this.clock.eta(run.runId, name, m.done, m.total, m.state === 'running'),
          queue: m.queue ?? null,
        })),
    };
  }

  /** The Run page's data, or null for an unknown run. */
  async view(runId: string): Promise<RunView | null> {
    const run = this.source.run(runId);
    if (run === null) return null;
    const finalized = await this.finalizedOf(run);
    return {
      run: await this.item(run),
      reports: finalized?.reports ?? [],
      downloads: finalized?.downloads ?? [],
      manifest: finalized ? await this.manifestStatus(runId) : { status: 'missing', checked: 0, problems: [] },
    };
  }

  async fleet(): Promise<FleetView> {
    const runs = this.source.runs();
    // One view per run, shared by its machines: a run of a thousand machines is copied and
    // viewed once per fleet view, not once per agent.
    type Progress = RunListItem['machines'][number];
    const items = new Map<string, Promise<Map<string, Progress>> | null>();
    const itemOf = (runId: string): Promise<Map<string, Progress>> | null => {
      let item = items.get(runId);
      if (item === undefined) {
        const run = this.source.run(runId);
        items.set(runId, (item = run === null ? null : this.item(run).then((i) => new Map(i.machines.map((m) => [m.name, m])))));
      }
      return item;
    };
    const agents = await Promise.all(
      this.source.agents().map(async (agent) => {
        const item = agent.runId === null ? null : await itemOf(agent.runId);
        return {
          name: agent.name,
          state: agent.state,
          lastSeen: agent.lastSeen,
          load: agent.load,
          facts: agent.facts,
          affinity: await this.affinityOf(agent.name, runs),
          run: agent.runId === null ? null : { runId: agent.runId, progress: item?.get(agent.name) ?? null },
        };
      }),
    );
    return { agents };
  }

  /**
   * Read a finalized run's summaries and verify its manifest now, so that its page is quick
   * the first time it is opened. Nothing for a run that is not finalized yet.
   */
  async prepare(runId: string): Promise<void> {
    const run = this.source.run(runId);
    if (run === null || (await this.finalizedOf(run)) === null) return;
    await this.manifestStatus(runId);
  }

  /** A download's absolute path, only for files the run's manifest lists (and the manifest itself). */
  async downloadPath(runId: string, path: string): Promise<string | null> {
    const run = this.source.run(runId);
    if (run === null) return null;
    const finalized = await this.finalizedOf(run);
    if (!finalized?.downloads.some((d) => d.path === path)) return null;
    // The manifest on disk is what lists `path`: never serve anything outside the run folder.
    return confinedPath(this.source.runDir(runId), path);
  }

  private async affinityOf(machine: string, runs: readonly RunSummary[]): Promise<number[] | null> {
    const newestFirst = runs.filter((r) => machine in r.machines).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    for (const run of newestFirst) {
      const finalized = await this.finalizedOf(run);
      if (finalized?.affinity.has(machine)) return finalized.affinity.get(machine) ?? null;
    }
    return null;
  }

  private planName(runId: string): Promise<string | null> {
    let name = this.planNames.get(runId);
    if (!name) {
      name = readFile(join(this.source.runDir(runId), 'plan.json'), 'utf8').then(
        (text) => {
          const plan = JSON.parse(text) as { name?: unknown };
          return typeof plan.name === 'string' ? plan.name : null;
        },
        () => null,
      );
      this.planNames.set(runId, name);
    }
    return name;
  }

  /** The finalized run's figures, or null while it is not finalized (no manifest yet). */
  private finalizedOf(run: RunSummary): Promise<Finalized | null> {
    if (!FINAL_RUN_STATES.has(run.state)) return Promise.resolve(null);
    let found = this.finalized.get(run.runId);
    if (!found) {
      found = this.load(run).catch((error: unknown) => {
        log.warn(`run ${run.runId}: cannot read its stored summaries: ${errorMessage(error)}`);
        return null;
      });
      this.finalized.set(run.runId, found);
      // Not finalized yet: ask again next time, when the manifest may be there.
      void found.then((value) => {
        if (value === null) this.finalized.delete(run.runId);
      });
    }
    return found;
  }

  private async load(run: RunSummary): Promise<Finalized | null> {
    const dir = this.source.runDir(run.runId);
    let finishedAt: string;
    try {
      finishedAt = (await stat(join(dir, MANIFEST_FILE))).mtime.toISOString();
    } catch {
      return null;
    }
    const manifest = await readManifest(dir);
    const results: LoadedResult[] = [];
    const affinity = new Map<string, number[] | null>();
    let failures = 0;
    let startedAt: string | null = null;
    for (const machine of Object.keys(run.machines).sort()) {
      const machineDir = join(dir, machine);
      const files = (await readdir(machineDir).catch(() => [] as string[])).filter((f) => f.endsWith('.summary.json')).sort();
      let newest = '';
      for (const file of files) {
        const summary = await readSummaryFile(join(machineDir, file));
        const stem = file.slice(0, -'.summary.json'.length);
        const rawPath = manifest.files.some((f) => f.path === `${machine}/${stem}.jsonl`) ? join(machineDir, `${stem}.jsonl`) : null;
        results.push({ files: { dir: machineDir, stem, rawPath, summaryPath: join(machineDir, file) }, summary, origin: 'summary' });
        failures += summary.counts.failed;
        const env = summary.environment;
        if (env !== null && (startedAt === null || env.startedAt < startedAt)) startedAt = env.startedAt;
        if (env !== null && env.startedAt >= newest) {
          newest = env.startedAt;
          affinity.set(machine, env.affinity);
        }
      }
    }
    const downloads: DownloadView[] = [
      ...manifest.files.map((f) => ({ path: f.path, kind: f.kind, bytes: f.bytes })),
      { path: MANIFEST_FILE, kind: 'manifest' as const, bytes: (await stat(join(dir, MANIFEST_FILE))).size },
    ];
    return { finishedAt, startedAt, failures, reports: reportsForEveryArm(results), downloads, affinity };
  }

  private manifestStatus(runId: string): Promise<ManifestStatusView> {
    let status = this.manifests.get(runId);
    if (!status) {
      status = verifyManifest(this.source.runDir(runId)).then(
        (verdict) => ({
          status: verdict.ok ? ('verified' as const) : ('mismatch' as const),
          checked: verdict.checked,
          problems: verdict.differences.slice(0, MAX_MANIFEST_PROBLEMS).map((d) => `${d.path}: ${d.problem}`),
        }),
        (error: unknown) => ({ status: 'mismatch' as const, checked: 0, problems: [errorMessage(error)] }),
      );
      this.manifests.set(runId, status);
    }
    return status;
  }
}
