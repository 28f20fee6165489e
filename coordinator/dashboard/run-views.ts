// The data of the Runs, Run and Fleet pages, from the run's state and its stored files only:
// plan.json for the plan's name, the finalized <machine>/<policy>.summary.json files for the
// tables, manifest.json for the downloads. Nothing is analyzed again: what a finalized run's
// files say is read once and kept (finalized-runs.ts), since a finalized run does not change.
// No view grows with the run's machines: a run list item counts them, the Run page pages them.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, topFolderOf, verifyManifest } from '../../analysis/raw/manifest.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import type { MachineRunState, RunSummary } from '../../shared/protocol/events.ts';
import { MACHINES_IN_ITEM, type FleetView, type MachinePageView, type MachineProgressView, type MachineStateCounts, type ManifestStatusView, type RunListItem, type RunView } from './dashboard-views.ts';
import { FINAL_RUN_STATES, type DashboardSource } from './dashboard-source.ts';
import type { Finalized } from './finalized-runs.ts';
import type { FinalizedRequest } from './finalized-worker.ts';
import type { PageRequest as PageJob } from './page-worker.ts';
import type { Report } from '../../analysis/report/report-types.ts';
import { WorkerPool } from '../../shared/worker-pool.ts';
import { ProgressClock } from './progress-clock.ts';
import { confinedPath } from '../network/request-path.ts';

const log = createLogger('dashboard');
const MAX_MANIFEST_PROBLEMS = 10;

/** Which machines a page shows, and of which arm. */
export interface PageRequest {
  offset: number;
  limit: number;
  /** A pool arm of the run; undefined: the default arm. */
  arm?: string;
}

/** A view, and whether it is final: a finalized run's views never change, so their answers can be kept. */
export interface Viewed<T> {
  view: T;
  final: boolean;
}

const byName = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

export class RunViews {
  private readonly source: DashboardSource;
  private readonly clock = new ProgressClock();
  private readonly planNames = new Map<string, Promise<string | null>>();
  private readonly finalized = new Map<string, Promise<Finalized | null>>();
  private readonly manifests = new Map<string, Promise<ManifestStatusView>>();
  /**
   * One thread reads finished runs, one run at a time (a thousand machines' take hundreds of
   * MiB while read), and ends when none waits.
   */
  private readonly reader = new WorkerPool<FinalizedRequest, Finalized | null>({
    entry: new URL('./finalized-worker.ts', import.meta.url),
    threads: 1,
    idle: 'end',
    death: 'its-jobs',
    stopped: (code) => `the dashboard's reader of finished runs stopped (exit code ${code}) before answering`,
  });
  /**
   * One thread builds pages of finished runs' tables, apart from the reader so that a page never
   * waits for a run's reading. It stays once started (until close): someone paging through a
   * run asks every few seconds, and a new thread costs about 100 ms of CPU before it answers.
   */
  private readonly pager = new WorkerPool<PageJob, Report>({
    entry: new URL('./page-worker.ts', import.meta.url),
    threads: 1,
    idle: 'keep',
    death: 'its-jobs',
    stopped: (code) => `the dashboard's page builder stopped (exit code ${code}) before answering`,
  });

  constructor(source: DashboardSource) {
    this.source = source;
  }

  /** The newest `max` runs, newest first, and how many older ones were left out. */
  async list(max: number): Promise<{ runs: RunListItem[]; omitted: number }> {
    const runs = this.source.runs().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    return { runs: await Promise.all(runs.slice(0, max).map((run) => this.item(run))), omitted: Math.max(0, runs.length - max) };
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
      ...this.machineCounts(run),
    };
  }

  private machineCounts(run: RunSummary): Pick<RunListItem, 'machines' | 'machineCount' | 'machineStates' | 'done' | 'total'> {
    const entries = Object.entries(run.machines);
    const machineStates: MachineStateCounts = {};
    let done = 0;
    let total = 0;
    for (const [, m] of entries) {
      machineStates[m.state] = (machineStates[m.state] ?? 0) + 1;
      done += m.done;
      total += m.total;
    }
    const first = entries.sort(byName).slice(0, MACHINES_IN_ITEM);
    return { machines: first.map(([name, m]) => this.progress(run.runId, name, m)), machineCount: entries.length, machineStates, done, total };
  }

  private progress(runId: string, name: string, m: MachineRunState): MachineProgressView {
    return {
      name,
      state: m.state,
      done: m.done,
      total: m.total,
      message: m.message,
      waiting: m.waiting ?? null,
      etaSeconds: this.clock.eta(runId, name, m.done, m.total, m.state === 'running'),
      queue: m.queue ?? null,
    };
  }

  /** The Run page's data (its first page of machines), or null for an unknown run. */
  async view(runId: string, first: PageRequest): Promise<Viewed<RunView> | null> {
    const run = this.source.run(runId);
    if (run === null) return null;
    const finalized = await this.finalizedOf(run);
    const page = await this.pageOf(run, finalized, first);
    return {
      view: {
        run: await this.item(run),
        arms: finalized?.arms.map((a) => a.arm) ?? [],
        page,
        downloads: finalized?.runDownloads ?? [],
        manifest: finalized ? await this.manifestStatus(runId) : { status: 'missing', checked: 0, problems: [] },
      },
      final: finalized !== null,
    };
  }

  /** A page of the run's machines, or null for an unknown run; an arm the run does not have is a USAGE error. */
  async page(runId: string, request: PageRequest): Promise<Viewed<MachinePageView> | null> {
    const run = this.source.run(runId);
    if (run === null) return null;
    const finalized = await this.finalizedOf(run);
    return { view: await this.pageOf(run, finalized, request), final: finalized !== null };
  }

  private async pageOf(run: RunSummary, finalized: Finalized | null, request: PageRequest): Promise<MachinePageView> {
    const all = Object.entries(run.machines).sort(byName);
    const shown = all.slice(request.offset, request.offset + request.limit);
    const names = shown.map(([name]) => name);
    const facts = finalized === null ? null : request.arm === undefined ? (finalized.arms[0] ?? null) : finalized.arms.find((a) => a.arm === request.arm);
    if (facts === undefined) throw new BenchfleetError('USAGE', `run ${run.runId} has no figures of arm "${request.arm ?? ''}"; its arms are ${finalized?.arms.map((a) => a.arm).join(', ') || 'none'}`);
    return {
      offset: request.offset,
      limit: request.limit,
      total: all.length,
      machines: shown.map(([name, m]) => this.progress(run.runId, name, m)),
      arm: facts?.arm ?? null,
      report: finalized === null || facts === null ? null : await this.pager.run({ files: names.flatMap((name) => finalized.files.get(name) ?? []), facts }),
      acrossMachines: facts?.acrossMachines ?? null,
      downloads: names.flatMap((name) => finalized?.machineDownloads.get(name) ?? []),
    };
  }

  async fleet(): Promise<FleetView> {
    const runs = this.source.runs();
    const byId = new Map(runs.map((r) => [r.runId, r]));
    const agents = await Promise.all(
      this.source.agents().map(async (agent) => {
        const run = agent.runId === null ? undefined : byId.get(agent.runId);
        const m = run?.machines[agent.name];
        return {
          name: agent.name,
          state: agent.state,
          lastSeen: agent.lastSeen,
          load: agent.load,
          facts: agent.facts,
          affinity: await this.affinityOf(agent.name, runs),
          run: agent.runId === null ? null : { runId: agent.runId, progress: run === undefined || m === undefined ? null : this.progress(run.runId, agent.name, m) },
        };
      }),
    );
    return { agents };
  }

  /** Ends the reader's and the page builder's threads, if they work. */
  async close(): Promise<void> {
    await Promise.all([this.reader.close(), this.pager.close()]);
  }

  /**
   * Read a finalized run's summaries and verify its manifest now, so that its page is quick
   * the first time it is opened. Nothing for a run that is not finalized yet.
   */
  async prepare(runId: string): Promise<void> {
    const run = this.source.run(runId);
    if (run === null || (await this.finalizedOf(run)) === null) return;
    await this.manifestStatus(runId);
    // A finished run to show: the page builder's thread is started now rather than by the first page.
    await this.pager.prepare();
    this.pager.start();
  }

  /** A download's absolute path, only for files the run's manifest lists (and the manifest itself). */
  async downloadPath(runId: string, path: string): Promise<string | null> {
    const run = this.source.run(runId);
    if (run === null) return null;
    const finalized = await this.finalizedOf(run);
    const folder = topFolderOf(path);
    const listed = [...finalized?.runDownloads ?? [], ...(folder === null ? [] : finalized?.machineDownloads.get(folder) ?? [])];
    if (!listed.some((d) => d.path === path)) return null;
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
      const dir = this.source.runDir(run.runId);
      const machines = Object.keys(run.machines);
      // No manifest yet is the common answer, and a stat is cheaper than a thread.
      found = stat(join(dir, MANIFEST_FILE)).then(
        () => this.reader.run({ dir, machines }),
        () => null,
      ).catch((error: unknown) => {
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
