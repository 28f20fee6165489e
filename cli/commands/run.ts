// `benchfleet run PLAN --machines a,b`: one run of a plan on several machines.
import type { CommandModule } from 'yargs';
import { parsePlan } from '../../shared/plan-validate.ts';
import { BenchfleetError, errorMessage } from '../../shared/errors.ts';
import { readInputFile } from '../read-input.ts';
import { connectControl, connectionOptions, unwrap, type ConnectionArgs } from '../control-client.ts';
import { followRun } from '../follow.ts';
import { request } from '../../shared/protocol/request.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { printJson, printLine } from '../output.ts';

interface Args extends ConnectionArgs { plan: string; machines: string; follow: boolean; json: boolean }

export const runCommand: CommandModule<object, Args> = {
  command: 'run <plan>',
  describe: 'Send one plan to several machines as one run; prints the run id',
  builder: (y) =>
    connectionOptions(
      y
        .positional('plan', { type: 'string', demandOption: true, describe: 'Plan file (JSON, docs/plan.md)' })
        .option('machines', { type: 'string', demandOption: true, describe: 'Comma-separated agent names, e.g. ryzen,m2pro' })
        .option('follow', { type: 'boolean', default: false, describe: 'Show live progress per machine and end with the report' })
        .option('json', { type: 'boolean', default: false, describe: 'Print { runId, planSha256 } (with --follow: also the final state and report)' }),
    ).example('$0 run plans/study.json --machines ryzen,m2pro --follow', 'the study on two machines'),
  handler: async (args) => {
    const text = new TextDecoder().decode(await readInputFile(args.plan));
    try {
      parsePlan(JSON.parse(text));
    } catch (error) {
      throw new BenchfleetError('PLAN_INVALID', `${args.plan}: ${errorMessage(error)}`);
    }
    const machines = args.machines.split(',').map((m) => m.trim()).filter(Boolean);
    if (machines.length === 0) throw new BenchfleetError('USAGE', '--machines names no machine');
    const socket = await connectControl(args);
    try {
      const started = unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 60_000, 'run:start', { planText: text, machines }));
      if (!args.follow) {
        if (args.json) printJson(started);
        else printLine(started.runId);
        return;
      }
      if (!args.json) printLine(`run ${started.runId} (plan ${started.planSha256.slice(0, 12)}) on ${machines.join(', ')}`);
      const result = await followRun(socket, started.runId);
      if (args.json) printJson({ ...started, state: result.run.state, machines: result.run.machines, dir: result.dir, report: result.markdown });
      else {
        printLine();
        printLine(result.markdown.trimEnd());
        printLine();
        printLine(`run ${started.runId}: ${result.run.state}; files on the coordinator in ${result.dir}`);
      }
      if (result.run.state !== 'completed') process.exitCode = 1;
    } finally {
      socket.close();
    }
  },
};
