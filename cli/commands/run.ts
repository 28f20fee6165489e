// `benchfleet run PLAN --machines a,b`: one run of a plan on several machines.
import type { CommandModule } from 'yargs';
import { POLICY_ENV } from '../../shared/plan-policy-env.ts';
import { BenchfleetError } from '../../shared/errors.ts';
import { connectionOptions, type ConnectionArgs } from '../connection-options.ts';
import { printFollowed, reconnectMs, reconnectOption, type ReconnectArgs } from '../follow-options.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { ControlToCoordinator, RunStarted } from '../../shared/protocol/events.ts';
import { machineStateText } from '../../shared/queue-place.ts';
import { printJson, printLine } from '../output.ts';

interface Args extends ConnectionArgs, ReconnectArgs { plan: string; machines: string; runs: number; follow: boolean; json: boolean }

export const runCommand: CommandModule<object, Args> = {
  command: 'run <plan>',
  describe: 'Send one plan to several machines as one run; prints the run id (a busy machine queues it)',
  builder: (y) =>
    reconnectOption(connectionOptions(
      y
        .positional('plan', { type: 'string', demandOption: true, describe: 'Plan file (JSON, docs/plan.md)' })
        .option('machines', { type: 'string', demandOption: true, describe: 'Comma-separated agent names, e.g. ryzen,m2pro' })
        .option('runs', { type: 'number', default: 1, describe: 'Schedule this many runs back to back (to measure run-to-run variation; see `benchfleet compare`)' })
        .option('follow', { type: 'boolean', default: false, describe: 'Show live progress per machine and end with the report' })
        .option('json', { type: 'boolean', default: false, describe: 'Print { runId, runIds, planSha256, queue } (with --follow: also the final state and report)' }),
    ))
      .example('$0 run deploy/plans/study.json --machines ryzen,m2pro --follow', 'the study on two machines')
      .example('$0 run deploy/plans/demo.json --machines ryzen --runs 5', 'five back-to-back runs, then `benchfleet compare` them')
      .epilogue(`A machine works on one run at a time: on a busy machine the run waits in that machine's queue (first come, first served) and starts when the machine is free; machines of one run start on their own. \`benchfleet cancel RUN\` takes a queued run out.\n\n${POLICY_ENV}, the study scripts' variable naming the reset policies (e.g. whole,pages), is written into a plan that names none before it is sent and hashed.`),
  handler: async (args) => {
    const { connectControl } = await import('../control-client.ts');
    const { detachOnInterrupt, followRun } = await import('../follow.ts');
    const { planToSend } = await import('../plan-to-send.ts');
    const { naming } = await import('../unknown-machine.ts');
    // FOLIO_CORPUS_RESET goes into the plan text here, before the coordinator hashes it.
    const { planText: text, machines } = await planToSend(args.plan, args.machines);
    if (!Number.isInteger(args.runs) || args.runs < 1 || args.runs > 100) throw new BenchfleetError('USAGE', `--runs must be a whole number from 1 to 100, got ${args.runs}`);
    const reconnectForMs = reconnectMs(args);
    const socket = await connectControl(args);
    let started: RunStarted;
    try {
      started = await naming(socket, machines, async () => unwrap(await request<ControlToCoordinator, 'run:start'>(socket, 60_000, 'run:start', { planText: text, machines, runs: args.runs })));
    } finally {
      socket.close();
    }
    // A busy machine queues the run: say where it waits, on stderr so that stdout stays the run ids.
    if (!args.json) for (const [machine, place] of Object.entries(started.queue)) process.stderr.write(`${machine}: ${machineStateText({ state: 'queued', queue: place })} (it finishes the runs before this one first; \`benchfleet status\` shows them)\n`);
    if (!args.follow) {
      if (args.json) printJson(started);
      else printLine(started.runIds.join('\n'));
      return;
    }
    const followed = [];
    for (const [i, runId] of started.runIds.entries()) {
      if (!args.json) printLine(`run ${runId}${started.runIds.length > 1 ? ` (${i + 1} of ${started.runIds.length})` : ''} (plan ${started.planSha256.slice(0, 12)}) on ${machines.join(', ')}`);
      const result = await detachOnInterrupt(runId, () => followRun(() => connectControl(args), runId, { reconnectForMs }));
      followed.push({ runId, state: result.run.state, machines: result.run.machines, dir: result.dir, report: result.markdown });
      if (!args.json) printFollowed(runId, result);
      if (result.run.state !== 'completed') process.exitCode = 1;
    }
    if (args.json) printJson({ ...started, runs: followed });
    else if (started.runIds.length > 1) printLine(`\ncompare them: benchfleet compare ${started.runIds.join(' ')} --data <the coordinator's --data folder>`);
  },
};
