// What the run index holds about one run, read from its folder: run.json for the state,
// plan.json for the plan's name, manifest.json (verified, when asked) and each completed
// machine's summaries. The folder is the truth; these rows are only ever derived from it.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE, topFolderOf, verifyManifestEach } from '../../analysis/raw/manifest.ts';
import { parseSummary, readSummaryFile } from '../../analysis/summary/summary-io.ts';
import type { Summary } from '../../analysis/summary/summary-types.ts';
import { errorMessage } from '../../shared/errors.ts';
import type { EnvironmentRecord } from '../../shared/records.ts';
import { isTerminal, parseStoredRun } from '../run-schema.ts';
import { PLAN_FILE, RUN_FILE } from '../run-store.ts';
import { CELL_FIGURES, type CellBlock } from './cell-blocks.ts';
import type { IndexedRun, MachineRow } from './index-schema.ts';

/** A run folder's rows, or why it is left out of the index. */
export type FolderRows = { ok: true; rows: IndexedRun } | { ok: false; reason: string; warn: boolean };

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA256 over `name NUL hash` lines of a name-to-hash map, sorted by name: one hash for a corpus or a set of inputs. */
function mapHash(...maps: (Record<string, string> | undefined)[]): string {
  const lines: string[] = [];
  for (const [i, map] of maps.entries()) for (const [name, hash] of Object.entries(map ?? {})) lines.push(`${i}\0${name}\0${hash}\n`);
  return sha256Hex(lines.sort().join(''));
}

function machineRow(machine: string, env: EnvironmentRecord): MachineRow {
  return {
    machine,
    startedAt: env.startedAt,
    node: env.node,
    v8: env.v8,
    os: `${env.os.platform} ${env.os.release} ${env.os.arch}`,
    cpuModel: env.cpu.model,
    cpuCount: env.cpu.count,
    governor: env.cpu.governor,
    affinity: env.affinity === null ? null : JSON.stringify(env.affinity),
    niceness: env.niceness,
    heapCapMb: env.heapCapMb,
    harnessSha256: env.harnessSha256,
    corpusSha256: mapHash(env.corpus, env.trackedCorpus),
    inputsSha256: mapHash(env.inputs),
    load: [env.loadAverage[0], env.loadAverage[1], env.loadAverage[2]],
  };
}

function cellBlock(machine: string, summary: Summary): CellBlock | null {
  const policy = summary.environment?.policy;
  if (policy === undefined) return null;
  const rows = summary.rows;
  const figures = new Float64Array(rows.length * CELL_FIGURES);
  for (const [i, row] of rows.entries()) {
    const o = i * CELL_FIGURES;
    figures[o] = row.speedup.median;
    figures[o + 1] = row.speedup.lo;
    figures[o + 2] = row.speedup.hi;
    figures[o + 3] = row.cpuRatio?.median ?? NaN;
    figures[o + 4] = row.cpuRatio?.lo ?? NaN;
    figures[o + 5] = row.cpuRatio?.hi ?? NaN;
    figures[o + 6] = row.rounds;
    figures[o + 7] = row.failures;
  }
  return { machine, policy, kernels: rows.map((r) => r.kernel), arms: rows.map((r) => r.arm), figures };
}

/** What the index takes of one summary. */
interface Taken {
  environment: EnvironmentRecord | null;
  block: CellBlock | null;
}

const takeSummary = (machine: string, summary: Summary): Taken => ({ environment: summary.environment, block: cellBlock(machine, summary) });

/**
 * The rows of the finalized run in `dir`. With `verify`, every file is checked against the
 * manifest first and a folder that does not match is left out (with `warn`: someone changed or
 * lost a file); a run that is not final yet (no manifest, or not in a final state) is left out
 * quietly. Only machines that completed have rows: a failed or cancelled machine's partial
 * figures would read as changes.
 */
export async function readFolderRows(dir: string, runId: string, verify: boolean): Promise<FolderRows> {
  let stored;
  try {
    stored = parseStoredRun(JSON.parse(await readFile(join(dir, RUN_FILE), 'utf8')) as unknown, join(dir, RUN_FILE));
  } catch (error) {
    return { ok: false, reason: `its ${RUN_FILE} cannot be read: ${errorMessage(error)}`, warn: true };
  }
  if (!isTerminal(stored.state)) return { ok: false, reason: `not finished (${stored.state})`, warn: false };
  let manifestText: string;
  try {
    manifestText = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return { ok: false, reason: `no ${MANIFEST_FILE} yet (not finalized)`, warn: false };
  }
  // Each summary taken as the manifest check reads it, from the bytes it hashed rather than read
  // again, one at a time: what the index takes of it (its environment and cell block) is kept,
  // not its bytes. A summary that does not parse fails the folder only if its machine completed.
  const taken = new Map<string, Taken | { error: unknown }>();
  if (verify) {
    try {
      const verdict = await verifyManifestEach(dir, (path, bytes) => {
        const machine = topFolderOf(path);
        if (machine === null || !path.endsWith('.summary.json')) return;
        try {
          taken.set(path, takeSummary(machine, parseSummary(bytes.toString('utf8'), join(dir, ...path.split('/')))));
        } catch (error) {
          taken.set(path, { error });
        }
      });
      if (!verdict.ok) {
        const shown = verdict.differences.slice(0, 3).map((d) => `${d.problem}: ${d.path}`);
        const more = verdict.differences.length > 3 ? ` and ${verdict.differences.length - 3} more` : '';
        return { ok: false, reason: `its manifest does not verify (${shown.join(', ')}${more}); check it with \`benchfleet manifest ${dir} --verify\``, warn: true };
      }
    } catch (error) {
      return { ok: false, reason: `its manifest cannot be checked: ${errorMessage(error)}`, warn: true };
    }
  }
  let planName: string | null = null;
  try {
    const plan = JSON.parse(await readFile(join(dir, PLAN_FILE), 'utf8')) as { name?: unknown } | null;
    if (typeof plan?.name === 'string') planName = plan.name;
  } catch {
    // A plan without a name, or unreadable (the manifest check above caught a changed one): no name.
  }
  const machines: MachineRow[] = [];
  const blocks: CellBlock[] = [];
  for (const [machine, m] of Object.entries(stored.machines).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (m.state !== 'completed') continue;
    const files = (await readdir(join(dir, machine)).catch(() => [] as string[])).filter((f) => f.endsWith('.summary.json')).sort();
    let first: EnvironmentRecord | null = null;
    for (const file of files) {
      let t: Taken;
      try {
        const found = taken.get(`${machine}/${file}`);
        if (found !== undefined && 'error' in found) throw found.error;
        t = found ?? takeSummary(machine, await readSummaryFile(join(dir, machine, file)));
      } catch (error) {
        return { ok: false, reason: errorMessage(error), warn: true };
      }
      const env = t.environment;
      if (env !== null && (first === null || env.startedAt < first.startedAt)) first = env;
      if (t.block !== null) blocks.push(t.block);
    }
    if (first !== null) machines.push(machineRow(machine, first));
  }
  const run = { runId, planName, planSha256: stored.planSha256, state: stored.state, createdAt: stored.createdAt, manifestSha256: sha256Hex(manifestText), confirmsRunId: stored.confirms?.runId ?? null };
  return { ok: true, rows: { run, machines, blocks } };
}
