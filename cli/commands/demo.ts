// `benchfleet demo` (`npm start`): the whole product on one machine. A coordinator on
// loopback, two agents as real child processes (local-a and local-b, like the study's two
// machines), one short run of deploy/plans/demo.json, the per-machine table, and where every
// file is. Ctrl-C stops everything cleanly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CommandModule } from 'yargs';
import { BENCHFLEET_BIN } from '../../shared/harness-contract.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { childExecArgv } from '../../shared/ts-runtime.ts';
import type { ControlSocket } from '../control-client.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { printLine } from '../output.ts';
import { printReport } from '../follow-options.ts';
import { parseListen } from '../listen-address.ts';
import { ProgressDisplay } from '../progress-display.ts';

const DEMO_PLAN = fileURLToPath(new URL('../../deploy/plans/demo.json', import.meta.url));
const MACHINES = ['local-a', 'local-b'];

interface Args { data: string; plan: string; dashboard: string; 'keep-open': boolean | undefined }

export const demoCommand: CommandModule<object, Args> = {
  command: 'demo',
  describe: 'Coordinator and two local agents on loopback run a short plan (what `npm start` does)',
  builder: (y) =>
    y
      .option('data', { type: 'string', default: '.benchfleet/demo', describe: 'Data folder for the coordinator and the agents' })
      .option('plan', { type: 'string', default: DEMO_PLAN, describe: 'Plan to run' })
      .option('dashboard', { type: 'string', default: '127.0.0.1:0', describe: 'HOST:PORT of the web dashboard (port 0 picks a free one)' })
      .option('keep-open', { type: 'boolean', describe: 'Keep the dashboard open after the run until Ctrl-C (default: when stdout is a terminal)' }),
  handler: async (args) => {
    const { Coordinator } = await import('../../coordinator/server.ts');
    const { tokenChecker } = await import('../../coordinator/network/auth.ts');
    const { startDashboard } = await import('../../coordinator/dashboard/start-dashboard.ts');
    const { connectControl } = await import('../control-client.ts');
    const { followRun } = await import('../follow.ts');
    const { packPlanModules } = await import('../../kernels/user-module/pack.ts');
    const dataDir = resolve(args.data);
    await mkdir(dataDir, { recursive: true });
    const token = randomBytes(24).toString('hex');
    const coordinator = new Coordinator({ host: '127.0.0.1', port: 0, dataDir: join(dataDir, 'coordinator'), token });
    const url = await coordinator.start();
    printLine(`coordinator on ${url}, data in ${join(dataDir, 'coordinator')}`);
    const dashboard = await startDashboard(coordinator, parseListen(args.dashboard, '--dashboard'), tokenChecker(token));
    printLine(`dashboard on ${dashboard.url}/ ; open this one-time login link: ${dashboard.oneTimeLoginUrl()}`);
    const env = { ...process.env, BENCHFLEET_TOKEN: token };
    // The agents' lines go above the progress bars, never into them.
    const display = new ProgressDisplay(process.stdout);
    const agents: ChildProcess[] = MACHINES.map((name) => {
      const child = spawn(process.execPath, [...childExecArgv(), BENCHFLEET_BIN, 'agent', '--coordinator', url, '--name', name, '--state', join(dataDir, 'agents', name)], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => display.printAbove(line));
      return child;
    });
    let socket: ControlSocket | null = null;
    let interrupted = false;
    let runId: string | null = null;
    const stopFollowing = new AbortController();
    const shutdown = async (): Promise<void> => {
      socket?.close();
      await Promise.all(
        agents.map(
          (child) =>
            new Promise<void>((done) => {
              // 'close', not 'exit': after the agent's last lines ("stopped") have been read.
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('close', () => done());
              child.kill('SIGTERM');
            }),
        ),
      );
      await dashboard.close();
      await coordinator.close();
    };
    // Ctrl-C: the bars stay as they were, the agents' last lines come below them, and the line
    // saying what became of the run is the last one on the screen.
    const onSignal = (): void => {
      interrupted = true;
      display.stop();
      stopFollowing.abort();
      printLine('\nstopping the demo: agents, then the coordinator');
      void shutdown().then(() => {
        printLine(runId === null ? 'stopped the demo.' : `stopped the demo; run ${runId} is kept in ${join(dataDir, 'coordinator')}, and the next \`npm start\` resumes it before its own run.`);
        process.exit(130);
      });
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      socket = await connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token });
      await waitForAgents(socket, MACHINES, 60_000);
      // A plan of your own modules carries their bytes (README "Your own module").
      const planText = packPlanModules(await readFile(args.plan, 'utf8'), args.plan);
      const started = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 60_000, 'run:start', { planText, machines: MACHINES }));
      runId = started.runId;
      printLine(`run ${started.runId}: ${args.plan === DEMO_PLAN ? 'deploy/plans/demo.json' : args.plan} on ${MACHINES.join(' and ')} (one machine at a time: they share this machine's timing lock)`);
      const result = await followRun(() => connectControl({ coordinator: url, 'token-file': undefined, ca: undefined }, { token }), started.runId, { display, signal: stopFollowing.signal });
      printLine();
      printReport(result.markdown);
      printLine();
      printLine(`Files of run ${started.runId}: ${result.dir}`);
      printLine('  plan.json, <machine>/<policy>.jsonl (raw), <machine>/<policy>.summary.json, report.md, manifest.json');
      if (result.run.state !== 'completed') process.exitCode = 1;
      if (args['keep-open'] ?? process.stdout.isTTY === true) {
        printLine(`\nThe dashboard stays open: ${dashboard.url}/runs/${started.runId} (a new one-time login link: ${dashboard.oneTimeLoginUrl(`/runs/${started.runId}`)}). Ctrl-C stops it.`);
        await new Promise<void>((done) => process.once('SIGINT', done));
      }
    } catch (error) {
      // Ctrl-C closes the connection under the follow; the shutdown in progress says what happens.
      if (!interrupted) throw error;
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      if (!interrupted) await shutdown();
    }
  },
};

async function waitForAgents(socket: ControlSocket, names: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status'));
    const online = new Set(status.agents.filter((a) => a.state !== 'offline').map((a) => a.name));
    if (names.every((n) => online.has(n))) return;
    if (Date.now() > deadline) throw new BenchfleetError('CONNECTION', `agents ${names.filter((n) => !online.has(n)).join(', ')} did not connect within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
