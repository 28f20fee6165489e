// Notes on a report's inputs that change how its table reads: machines (or policies of one
// machine) that ran different Node versions, harness sources, corpus modules, tracked twins or
// plans. The study had to name the M2 sources by hash by hand; a report says it above the table.
import type { EnvironmentRecord } from '../../shared/records.ts';
import type { RedoneRound } from '../raw/raw-types.ts';

export interface EnvironmentEntry {
  machine: string;
  policy: string;
  environment: EnvironmentRecord | null;
}

const MAX_KERNEL_NOTES = 5;

/** "value (label), value (label)" with labels grouped by machine when all of a machine's entries agree. */
function describeGroups(entries: readonly EnvironmentEntry[], valueOf: (e: EnvironmentEntry) => string | undefined, show: (v: string) => string): string | null {
  const withValue = entries.filter((e) => valueOf(e) !== undefined);
  const values = [...new Set(withValue.map((e) => valueOf(e) as string))];
  if (values.length < 2) return null;
  return values
    .map((value) => {
      const holders = withValue.filter((e) => valueOf(e) === value);
      const labels: string[] = [];
      for (const machine of [...new Set(holders.map((e) => e.machine))]) {
        const all = withValue.filter((e) => e.machine === machine);
        const mine = holders.filter((e) => e.machine === machine);
        if (mine.length === all.length) labels.push(machine);
        else labels.push(...mine.map((e) => `${machine}/${e.policy}`));
      }
      return `${show(value)} (${labels.join(', ')})`;
    })
    .join(', ');
}

const shortHash = (h: string) => h.slice(0, 12);

export function environmentNotes(entries: readonly EnvironmentEntry[]): string[] {
  const notes: string[] = [];
  const field = (label: string, valueOf: (env: EnvironmentRecord) => string, show: (v: string) => string = (v) => v, tail = '') => {
    const groups = describeGroups(entries, (e) => (e.environment ? valueOf(e.environment) : undefined), show);
    if (groups !== null) notes.push(`${label} differs: ${groups}${tail}.`);
  };
  field('Plan SHA256', (env) => env.planSha256, shortHash, ': these results come from different plans');
  field('Node version', (env) => env.node);
  field('Harness source SHA256', (env) => env.harnessSha256, shortHash);
  const kernels = [...new Set(entries.flatMap((e) => [...Object.keys(e.environment?.corpus ?? {}), ...Object.keys(e.environment?.trackedCorpus ?? {})]))];
  const differing: { kernel: string; note: string }[] = [];
  for (const kernel of kernels) {
    const groups = describeGroups(entries, (e) => e.environment?.corpus[kernel], shortHash);
    if (groups !== null) differing.push({ kernel, note: `Corpus module SHA256 of ${kernel} differs: ${groups}.` });
    if (twinsDifferOverOneModule(entries, kernel)) {
      const twins = describeGroups(entries, (e) => e.environment?.trackedCorpus?.[kernel], shortHash);
      differing.push({ kernel, note: `Tracked twin SHA256 of ${kernel} differs: ${twins ?? ''}.` });
    }
  }
  notes.push(...differing.slice(0, MAX_KERNEL_NOTES).map((d) => d.note));
  const more = new Set(differing.slice(MAX_KERNEL_NOTES).map((d) => d.kernel)).size;
  if (more > 0) notes.push(`Corpus module or tracked twin SHA256s differ for ${more} more kernel${more === 1 ? '' : 's'}; the summaries' environment rows list them.`);
  return notes;
}

/**
 * Whether `tracked` rows ran different twins of one plain module (an instrumenter that changed).
 * A twin is made from its plain module, so twins of plain modules that differ differ too, and the
 * plain module's note already tells those machines apart.
 */
function twinsDifferOverOneModule(entries: readonly EnvironmentEntry[], kernel: string): boolean {
  const twinsByModule = new Map<string | undefined, Set<string>>();
  for (const e of entries) {
    const twin = e.environment?.trackedCorpus?.[kernel];
    if (twin === undefined) continue;
    const plain = e.environment?.corpus[kernel];
    const twins = twinsByModule.get(plain) ?? new Set<string>();
    twins.add(twin);
    twinsByModule.set(plain, twins);
  }
  return [...twinsByModule.values()].some((twins) => twins.size > 1);
}

/** "round 3 of ryzen/pages was interrupted by a restart and redone": one note per redone round of each file. */
export function redoneNotes(entries: readonly { machine: string; policy: string; redone: readonly RedoneRound[] }[]): string[] {
  return entries.flatMap((e) =>
    e.redone.map((r) => `Round ${r.round} of ${e.machine}/${e.policy} was interrupted by a restart and redone; its ${r.supersededLines.length} earlier sample${r.supersededLines.length === 1 ? '' : 's'} (lines ${r.supersededLines[0] ?? '?'}-${r.supersededLines.at(-1) ?? '?'}) are kept in the raw file and left out of the figures.`),
  );
}
