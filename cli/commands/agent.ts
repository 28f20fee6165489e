// `benchfleet agent`: run benchmark plans for a coordinator on this machine.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { describeBadMachineName, validMachineName } from '../../shared/machine-name.ts';
import { loadToken } from '../../shared/token-file.ts';
import { BenchfleetError, FATAL_AUTH_EXIT_CODE, isBenchfleetError } from '../../shared/errors.ts';
import { printLine } from '../output.ts';
import { refuseTokenFlag } from '../token-options.ts';
import { checkLoadWait, isolationOptions, type IsolationArgs } from '../isolation-options.ts';

interface Args extends IsolationArgs {
  coordinator: string | undefined;
  name: string;
  state: string | undefined;
  'token-file': string | undefined;
  ca: string | undefined;
  'fatal-exit-code': number;
}

/** Refusals of the handshake that retrying cannot fix. */
const REFUSED_FOR_GOOD: ReadonlySet<string> = new Set(['AUTH_FAILED', 'FORBIDDEN', 'NAME_IN_USE', 'MACHINE_NAME_INVALID', 'PROTOCOL', 'PROTOCOL_MISMATCH']);

export const agentCommand: CommandModule<object, Args> = {
  command: 'agent',
  describe: 'Run plans from a coordinator on this machine and stream the samples back',
  builder: (y) =>
    isolationOptions(refuseTokenFlag(y))
      .option('coordinator', { type: 'string', describe: 'Coordinator URL (default: $BENCHFLEET_COORDINATOR)' })
      .option('name', { type: 'string', demandOption: true, describe: 'This machine\'s name in every table (letters, digits, ., _, -)' })
      .option('state', { type: 'string', describe: 'Folder for plans and unacknowledged samples (default: ~/.benchfleet/agent-NAME)' })
      .option('token-file', { type: 'string', describe: 'File whose first line is the agent token (default: $BENCHFLEET_TOKEN)' })
      .option('ca', { type: 'string', describe: 'PEM CA certificate to trust for an https coordinator' })
      .option('fatal-exit-code', {
        type: 'number',
        default: FATAL_AUTH_EXIT_CODE,
        describe: 'Exit code when the coordinator refuses this agent for good (wrong token, name in use or taken over by another agent, another protocol version), so a service manager does not restart it; launchd: 0',
      })
      .example('$0 agent --coordinator http://10.0.0.5:7420 --name ryzen --cpus 4-11 --nice 19 --heap-mb 128', 'the study\'s Ryzen set-up'),
  handler: async (args) => {
    const { Agent } = await import('../../agent/agent.ts');
    const { coordinatorUrl } = await import('../control-client.ts');
    if (!validMachineName(args.name)) throw new BenchfleetError('USAGE', `--name ${describeBadMachineName(args.name)}`);
    checkLoadWait(args);
    const fatalExit = args['fatal-exit-code'];
    if (!Number.isInteger(fatalExit) || fatalExit < 0 || fatalExit > 255) throw new BenchfleetError('USAGE', `--fatal-exit-code must be an exit code from 0 to 255, got ${fatalExit}`);
    const url = coordinatorUrl(args.coordinator);
    const token = await loadToken(args['token-file']);
    const ca = args.ca ? await readFile(args.ca) : undefined;
    const agent = new Agent({
      coordinator: url,
      name: args.name,
      token,
      stateDir: resolve(args.state ?? join(homedir(), '.benchfleet', `agent-${args.name}`)),
      ...(args.cpus !== undefined ? { cpus: args.cpus } : {}),
      ...(args.nice !== undefined ? { nice: args.nice } : {}),
      ...(args['heap-mb'] !== undefined ? { heapMb: args['heap-mb'] } : {}),
      ...(args['max-load'] !== undefined ? { maxLoad: args['max-load'], maxLoadWaitSeconds: args['max-load-wait'] } : {}),
      ...(ca ? { ca } : {}),
      onStatus: (line) => printLine(`[agent ${args.name}] ${line}`),
    });
    const stop = (): void => agent.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await agent.run();
    } catch (error) {
      // A refusal for good ends with its own exit code, so that launchd/systemd do not respawn it in a loop.
      // The coordinator's refusals carry their own codes (wrong token, wrong role, name in use, bad name, protocol version).
      if (isBenchfleetError(error) && REFUSED_FOR_GOOD.has(error.code)) {
        throw new BenchfleetError(error.code, `${error.message} (not retrying; exit code ${fatalExit})`, { cause: error, exitCode: fatalExit });
      }
      throw error;
    }
  },
};
