// `benchfleet coordinator`: the server agents and control clients connect to.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { loadToken } from '../../shared/token-file.ts';
import { setDefaultLogLevel } from '../../shared/log.ts';
import { DEFAULT_MACHINE_DEADLINE_HOURS } from '../../coordinator/runs/machine-deadline.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { printLine } from '../output.ts';
import { parseListen } from '../listen-address.ts';
import { refuseTokenFlag } from '../token-options.ts';

interface Args {
  listen: string;
  data: string;
  'token-file': string | undefined;
  'agent-token-file': string | undefined;
  'control-token-file': string | undefined;
  'tls-cert': string | undefined;
  'tls-key': string | undefined;
  dashboard: string | undefined;
  'machine-deadline': number;
  'confirm-runs': number;
}

export const coordinatorCommand: CommandModule<object, Args> = {
  command: 'coordinator',
  describe: 'Run the coordinator: agents connect to it, runs are stored under --data',
  builder: (y) =>
    refuseTokenFlag(y)
      .option('listen', { type: 'string', default: '127.0.0.1:7420', describe: 'HOST:PORT to listen on; use 0.0.0.0:7420 (or a LAN address) for agents on other machines' })
      .option('data', { type: 'string', demandOption: true, describe: 'Data folder: runs/<runId>/ with plan, raw files, summaries, report, manifest' })
      .option('token-file', { type: 'string', describe: 'File whose first line is the token for agents and control clients alike (default: $BENCHFLEET_TOKEN)' })
      .option('agent-token-file', { type: 'string', describe: 'File with the agents\' token: it can deliver records and nothing else (default: --token-file)' })
      .option('control-token-file', { type: 'string', describe: 'File with the control token: start, cancel, follow, download runs (default: --token-file)' })
      .option('machine-deadline', { type: 'number', default: DEFAULT_MACHINE_DEADLINE_HOURS, describe: 'Hours a machine\'s agent may stay away during a run before that machine fails (saying why); fractions allowed' })
      .option('confirm-runs', {
        type: 'number',
        default: 0,
        describe: 'After a run flags a regression on a machine (the history rule, defaults, plan by name), queue up to N confirmation runs of its plan on that machine, one after the other, until every flag there is confirmed or refuted (2 settles every flag; 0: none; docs/statistics.md)',
      })
      .option('tls-cert', { type: 'string', describe: 'PEM certificate: serve https/wss (with --tls-key)' })
      .option('tls-key', { type: 'string', describe: 'PEM private key for --tls-cert' })
      .option('dashboard', { type: 'string', describe: 'HOST:PORT to serve the read-only web dashboard on (log in with the control token; docs/dashboard.md)' })
      .example('BENCHFLEET_TOKEN=$(cat token) $0 coordinator --listen 0.0.0.0:7420 --data /srv/benchfleet', 'serve agents on the LAN')
      .example('$0 coordinator --listen 0.0.0.0:7420 --data /srv/benchfleet --agent-token-file agent.token --control-token-file control.token', 'agents cannot start or download runs')
      .example('$0 coordinator --data /srv/benchfleet --confirm-runs 2', 'a flagged regression is re-run twice at once on its machine: `history` shows it confirmed or refuted'),
  handler: async (args) => {
    // A service's log says when agents come and go, runs start and end and campaigns decide
    // (BENCHFLEET_LOG=warn quiets it).
    setDefaultLogLevel('info');
    const { Coordinator } = await import('../../coordinator/server.ts');
    const { tokenChecker } = await import('../../coordinator/network/auth.ts');
    const { startDashboard } = await import('../../coordinator/dashboard/start-dashboard.ts');
    const { validateConfirmRuns } = await import('../../coordinator/runs/confirmation.ts');
    const confirmRuns = validateConfirmRuns(args['confirm-runs']);
    const { host, port } = parseListen(args.listen);
    const deadline = args['machine-deadline'];
    if (!Number.isFinite(deadline) || deadline <= 0) throw new BenchfleetError('USAGE', `--machine-deadline ${String(deadline)} must be a positive number of hours`);
    if (Boolean(args['tls-cert']) !== Boolean(args['tls-key'])) throw new BenchfleetError('USAGE', '--tls-cert and --tls-key go together');
    // Each role's own file, else the one token (file or environment) for both.
    const shared = args['agent-token-file'] && args['control-token-file'] ? undefined : await loadToken(args['token-file']);
    const agentToken = args['agent-token-file'] ? await loadToken(args['agent-token-file'], process.env, '--agent-token-file') : shared;
    const controlToken = args['control-token-file'] ? await loadToken(args['control-token-file'], process.env, '--control-token-file') : shared;
    if (agentToken !== undefined && agentToken === controlToken && (args['agent-token-file'] || args['control-token-file'])) {
      throw new BenchfleetError('USAGE', 'the agent token and the control token are the same; make them different, or give one --token-file for both');
    }
    const tls = args['tls-cert'] && args['tls-key'] ? { cert: await readPem(args['tls-cert'], '--tls-cert'), key: await readPem(args['tls-key'], '--tls-key') } : undefined;
    const coordinator = new Coordinator({ host, port, dataDir: resolve(args.data), ...(agentToken ? { agentToken } : {}), ...(controlToken ? { controlToken } : {}), machineDeadlineMs: deadline * 3_600_000, confirmRuns, ...(tls ? { tls } : {}) });
    const url = await coordinator.start();
    printLine(`benchfleet coordinator listening on ${url} (data: ${resolve(args.data)})`);
    const dashboard = args.dashboard === undefined ? null : await startDashboard(coordinator, parseListen(args.dashboard, '--dashboard'), tokenChecker(controlToken ?? ''), tls);
    if (dashboard) printLine(`benchfleet dashboard on ${dashboard.url}/ (log in with the control token)`);
    await new Promise<void>((done) => {
      const stop = (): void => {
        printLine('benchfleet coordinator: stopping');
        void Promise.all([dashboard?.close(), coordinator.close()]).then(() => done());
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  },
};

async function readPem(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch {
    throw new BenchfleetError('FILE_NOT_FOUND', `cannot read ${flag} ${path}`);
  }
}
