// Every subcommand of the CLI. Adding one is a new file in cli/commands and a line here.
// Every definition here is loaded for any command (yargs needs them all to parse and to print
// --help), so a command file imports only what its definition needs (yargs options, defaults,
// help text) and loads what it runs with `await import(...)` in its handler: `--version` and
// `compare` then load neither the coordinator, socket.io, better-sqlite3, the agent nor esbuild.
import type { CommandModule } from 'yargs';
import { buildCorpusCommand } from './commands/build-corpus.ts';
import { buildWebCommand } from './commands/build-web.ts';
import { kernelsCommand } from './commands/kernels.ts';
import { kernelCommand } from './commands/kernel.ts';
import { analyzeCommand } from './commands/analyze.ts';
import { manifestCommand } from './commands/manifest.ts';
import { reportCommand } from './commands/report.ts';
import { compareCommand } from './commands/compare.ts';
import { harnessCommand } from './commands/harness.ts';
import { coordinatorCommand } from './commands/coordinator.ts';
import { agentCommand } from './commands/agent.ts';
import { runCommand } from './commands/run.ts';
import { statusCommand } from './commands/status.ts';
import { resultsCommand } from './commands/results.ts';
import { cancelCommand } from './commands/cancel.ts';
import { followCommand } from './commands/follow.ts';
import { demoCommand } from './commands/demo.ts';
import { campaignCommand } from './commands/campaign.ts';
import { agentsCommand } from './commands/agents.ts';
import { historyCommand } from './commands/history.ts';
import { reindexCommand } from './commands/reindex.ts';

// yargs' CommandModule is generic over each command's own argument shape; the list only hands
// them to yargs, which parses and checks each command's arguments itself.
export const commands = [buildCorpusCommand, buildWebCommand, kernelsCommand, kernelCommand, analyzeCommand, manifestCommand, reportCommand, harnessCommand, compareCommand, historyCommand, reindexCommand, coordinatorCommand, agentCommand, runCommand, campaignCommand, followCommand, statusCommand, agentsCommand, resultsCommand, cancelCommand, demoCommand] as unknown as readonly CommandModule[];
