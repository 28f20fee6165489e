// Where the dashboard's bundle is: web/dist, which `npm ci` builds (the prepare script runs
// `benchfleet build-web`). The coordinator serves these files as they are and never runs the
// bundler itself: starting a coordinator must not depend on esbuild or on a writable checkout.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchfleetError } from '../../shared/errors.ts';

export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface WebAssets {
  dashboardJs: string;
  reportJs: string;
  css: string;
}

/** The bundle's files in `dist` (web/dist unless a test gives another folder). */
export function webAssets(dist: string = WEB_DIST): WebAssets {
  return { dashboardJs: join(dist, 'dashboard.js'), reportJs: join(dist, 'report.js'), css: join(dist, 'dashboard.css') };
}

/** WEB_BUNDLE_MISSING, naming the command that builds it, when a file the dashboard serves is not there. */
export async function checkWebBundle(assets: WebAssets): Promise<void> {
  for (const path of [assets.dashboardJs, assets.css]) {
    try {
      await access(path);
    } catch {
      throw new BenchfleetError('WEB_BUNDLE_MISSING', `the dashboard's bundle ${path} is missing: run \`npm run build:web\` (\`npm ci\` builds it) before starting a coordinator with a dashboard`);
    }
  }
}
