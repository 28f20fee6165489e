// Bundles the dashboard's pages (web/src) with esbuild into web/dist: dashboard.js for the
// coordinator's dashboard, report.js for the self-contained HTML report, dashboard.css for
// both. Everything they use, Observable Plot and the socket.io client included, goes into the
// bundle: nothing is fetched from anywhere when a page runs. `npm ci` builds it (the prepare
// script; `npm run build:web` by hand), and the coordinator serves what was built. `report
// --html` calls ensureWebBundle, which builds it on first use and again when a source is newer.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import { WEB_DIST, webAssets } from '../coordinator/dashboard/web-assets.ts';

export { WEB_DIST };
export const WEB_ROOT = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(WEB_ROOT);
const INPUTS_FILE = join(WEB_DIST, 'inputs.json');

export const WEB_ASSETS = webAssets(WEB_DIST);
const ASSET_FILES: readonly string[] = [WEB_ASSETS.dashboardJs, WEB_ASSETS.reportJs, WEB_ASSETS.css];

/** Bundle web/src into web/dist; returns the bundles' total bytes. */
export async function buildWebBundle(): Promise<number> {
  const esbuild = await import('esbuild');
  // Built in a folder of its own and renamed into place file by file: a page or a test reading
  // web/dist while another process rebuilds it sees the old file or the new, never half of one.
  const staging = join(WEB_DIST, `.build-${process.pid}`);
  await mkdir(staging, { recursive: true });
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: {
        dashboard: join(WEB_ROOT, 'src', 'dashboard-main.ts'),
        report: join(WEB_ROOT, 'src', 'report-main.ts'),
        // The stylesheet is its own entry: the dashboard links it, the HTML report inlines it.
        'dashboard-style': join(WEB_ROOT, 'src', 'dashboard.css'),
      },
      entryNames: '[name]',
      outdir: staging,
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: ['chrome110', 'firefox110', 'safari16'],
      minify: true,
      legalComments: 'eof',
      metafile: true,
      logLevel: 'silent',
    });
  } catch (error) {
    throw new BenchfleetError('WEB_BUILD_FAILED', `could not bundle the dashboard (web/src): ${errorMessage(error)}`);
  }
  // esbuild names a CSS entry's output after the entry; one stable name for both users.
  await rename(join(staging, 'dashboard.js'), WEB_ASSETS.dashboardJs);
  await rename(join(staging, 'report.js'), WEB_ASSETS.reportJs);
  await rename(join(staging, 'dashboard-style.css'), WEB_ASSETS.css);
  await rm(staging, { recursive: true, force: true });
  const inputs = Object.keys(result.metafile.inputs).map((p) => relative(ROOT, join(ROOT, p)));
  await writeFile(join(WEB_DIST, `inputs.json.${process.pid}`), `${JSON.stringify(inputs, null, 1)}\n`);
  await rename(join(WEB_DIST, `inputs.json.${process.pid}`), INPUTS_FILE);
  let bytes = 0;
  for (const path of ASSET_FILES) bytes += (await stat(path)).size;
  return bytes;
}

/** Build web/dist when it is missing or older than one of the sources it was built from. */
export async function ensureWebBundle(): Promise<void> {
  if (!(await bundleIsCurrent())) await buildWebBundle();
}

async function bundleIsCurrent(): Promise<boolean> {
  let built: number;
  let inputs: string[];
  try {
    built = Math.min(...(await Promise.all(ASSET_FILES.map(async (p) => (await stat(p)).mtimeMs))));
    inputs = JSON.parse(await readFile(INPUTS_FILE, 'utf8')) as string[];
  } catch {
    return false;
  }
  for (const input of inputs) {
    try {
      if ((await stat(join(ROOT, input))).mtimeMs > built) return false;
    } catch {
      return false;
    }
  }
  return true;
}
