// `benchfleet build-web`: bundle the dashboard's pages (web/src) into web/dist with esbuild.
// `npm install` runs it (and `npm run build:web`); the coordinator serves what it built, and
// `report --html` builds on first use.
import type { CommandModule } from 'yargs';
import { printLine } from '../output.ts';

interface Args { quiet: boolean }

export const buildWebCommand: CommandModule<object, Args> = {
  command: 'build-web',
  describe: 'Bundle the web dashboard and the HTML report\'s script (npm install runs this)',
  builder: (y) => y.option('quiet', { type: 'boolean', default: false, describe: 'Print only the summary line' }),
  handler: async () => {
    const { buildWebBundle, WEB_DIST } = await import('../../web/build.ts');
    const started = performance.now();
    const bytes = await buildWebBundle();
    printLine(`benchfleet: bundled the dashboard into ${WEB_DIST} (${Math.round(bytes / 1024)} KiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  },
};
