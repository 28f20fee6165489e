// The other half of test/crash/power-cut-fs.mjs: start a real coordinator process on the power-cut
// file layer, "cut the power" (SIGKILL, then lay its data folder out as the layer's durable
// image says a power cut leaves it), and check what survived.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchfleet, type Proc } from './processes.ts';

export const POWER_CUT_LAYER = fileURLToPath(new URL('../crash/power-cut-fs.mjs', import.meta.url));

type Entry = { k: 'd' } | { k: 'f'; id: string };

/** The coordinator started on `dataDir` through the layer, its durable image kept in `shadow` (a new folder per start). */
export function startCoordinatorOnLayer(args: readonly string[], dataDir: string, shadow: string, env: NodeJS.ProcessEnv, logFile?: string): Proc {
  const layerEnv = { ...env, POWER_CUT_ROOT: dataDir, POWER_CUT_SHADOW: shadow, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${POWER_CUT_LAYER}`.trim() };
  return startBenchfleet(['coordinator', ...args, '--data', dataDir], layerEnv, logFile);
}

/** What the layer recorded in the last `windowMs` before now: sync, dirsync and dsync events, each with a path. */
export async function lastEvents(shadow: string, windowMs: number): Promise<{ at: number; what: string; path: string }[]> {
  const text = await readFile(join(shadow, 'events.log'), 'utf8').catch(() => '');
  const events = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [at, what, ...rest] = l.split(' ');
      return { at: Number(at), what: what ?? '', path: rest.join(' ') };
    });
  const since = Date.now() - windowMs;
  return events.filter((e) => e.at >= since);
}

/**
 * Replace `dataDir` by what a power cut leaves of it: from the data folder down, each folder's
 * last durable listing (a folder never synced since it was made is empty), each file with its
 * durable bytes (none when it was never synced). Returns the files laid out.
 */
export async function rebuildAfterCut(dataDir: string, shadow: string): Promise<number> {
  const listings = new Map<string, Record<string, Entry>>();
  const log = await readFile(join(shadow, 'dirs.log'), 'utf8');
  for (const line of log.split('\n')) {
    if (line === '') continue;
    const { dir, entries } = JSON.parse(line) as { dir: string; entries: Record<string, Entry> };
    listings.set(dir, entries);
  }
  const staged = `${dataDir}.after-cut`;
  await rm(staged, { recursive: true, force: true });
  let files = 0;
  const lay = async (rel: string, into: string): Promise<void> => {
    await mkdir(into, { recursive: true });
    for (const [name, entry] of Object.entries(listings.get(rel) ?? {})) {
      const childRel = rel === '' ? name : `${rel}/${name}`;
      if (entry.k === 'd') await lay(childRel, join(into, name));
      else {
        const content = join(shadow, 'content', entry.id);
        await writeFile(join(into, name), existsSync(content) ? await readFile(content) : Buffer.alloc(0));
        files++;
      }
    }
  };
  await lay('', staged);
  await rm(dataDir, { recursive: true, force: true });
  await rename(staged, dataDir);
  return files;
}
