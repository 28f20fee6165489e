// The command line refuses unknown, misspelled and missing arguments before anything runs (one
// error line, the command's usage line, exit 2), names the closest option of the command for a
// misspelled flag, and a reader that closes the pipe early
// (`benchfleet status | head -1`) ends it quietly. The first refusal and the pipe and status
// cases spawn the real executable; the other refusals run the CLI's main, which the executable
// runs, all in one process (test/fixtures/cli-cases.ts), with the same environment.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { NO_AGENT } from '../../cli/agent-table.ts';
import { typeScriptExecArgv } from '../../shared/ts-runtime.ts';
import type { CaseResult } from '../fixtures/cli-cases.ts';
import { runCli, type CliResult } from '../helpers/run-cli.ts';
import { startBenchfleet, type Proc } from '../helpers/processes.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

// A listener standing in for a coordinator: any connection to it means a command ran.
let listener: Server;
let connections = 0;
let listenerUrl = '';
const dir = tempDirSync({ after }, 'benchfleet-cli-');
const env = (): NodeJS.ProcessEnv => ({ BENCHFLEET_COORDINATOR: listenerUrl, BENCHFLEET_TOKEN: 'a-token-that-is-long-enough-here' });

/** The refusals run in one process: each argument list, and what the command line answered it. */
const REFUSED: string[][] = [
  ['harness', '--plan', 'deploy/plans/demo.json', '--out', join(dir, 'never'), '--nicee', '5'],
  ['run', 'deploy/plans/demo.json'],
  ['run', '--machines', 'a'],
  ['status', '--jsno'],
  ['cancel'],
  ['results', 'r1', '--outt', 'x'],
  ['agent', '--name', 'ryzen', '--nicee', '5'],
  ['agent', '--name', 'ryzen', '--frobnicate'],
  ['kernel', 'run', 'aes-cbc-decrypt', '--inptu', 'x', '--hepl', '--max-laod', '3'],
  ['stauts'],
];
const answers = new Map<string, CaseResult>();
/** Connections to the listener while the refusals ran in their process. */
let connectionsOfRefusals = 0;

before(async () => {
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  listenerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const fixture = fileURLToPath(new URL('../fixtures/cli-cases.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [...typeScriptExecArgv(), fixture, JSON.stringify(REFUSED)], { env: { ...process.env, ...env() }, maxBuffer: 16 * 1024 * 1024 });
  const results = JSON.parse(stdout) as CaseResult[];
  assert.equal(results.length, REFUSED.length, 'an answer for every case');
  REFUSED.forEach((args, i) => answers.set(JSON.stringify(args), results[i] as CaseResult));
  connectionsOfRefusals = connections;
});
after(() => new Promise<void>((resolve) => listener.close(() => resolve())));

function assertRefusedAs(args: string[], result: CliResult, message: RegExp, usage: RegExp): void {
  assert.equal(result.code, 2, `exit code of ${args.join(' ')}; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `one error line and one usage line, got:\n${result.stderr}`);
  assert.match(lines[0] ?? '', message);
  assert.match(lines[1] ?? '', usage);
}

/** A refusal run with the others in one process: its answer, and no connection from any of them. */
function assertRefused(args: string[], message: RegExp, usage: RegExp): void {
  const result = answers.get(JSON.stringify(args));
  assert.ok(result, `${args.join(' ')} is one of the cases run`);
  assertRefusedAs(args, result, message, usage);
  assert.equal(connectionsOfRefusals, 0, 'a refused command contacted the coordinator');
}

test('run with an unknown flag (--dry-run) stops before contacting the coordinator, as the executable', async () => {
  const args = ['run', 'deploy/plans/demo.json', '--machines', 'a', '--dry-run'];
  const before = connections;
  assertRefusedAs(args, await runCli(args, { env: env() }), /^Error \[USAGE\]: unknown option --dry-run$/, /^Usage: benchfleet run <plan> \[options\]; `benchfleet run --help` lists every option$/);
  assert.equal(connections, before, `${args.join(' ')} contacted the coordinator`);
});

test('harness with a misspelled flag (--nicee 5) stops before it runs or writes anything, and names --nice', async () => {
  assertRefused(['harness', '--plan', 'deploy/plans/demo.json', '--out', join(dir, 'never'), '--nicee', '5'], /^Error \[USAGE\]: unknown option --nicee; did you mean --nice\?$/, /^Usage: benchfleet harness \[options\]/);
  assert.deepEqual(await readdir(dir), []);
});

test('run without the required --machines or without a plan stops with what is missing', () => {
  assertRefused(['run', 'deploy/plans/demo.json'], /^Error \[USAGE\]: Missing required argument: machines$/, /^Usage: benchfleet run <plan>/);
  assertRefused(['run', '--machines', 'a'], /^Error \[USAGE\]: Not enough non-option arguments/, /^Usage: benchfleet run <plan>/);
});

test('status, cancel and results refuse unknown flags and missing run ids', () => {
  assertRefused(['status', '--jsno'], /^Error \[USAGE\]: unknown option --jsno; did you mean --json\?$/, /^Usage: benchfleet status \[options\]/);
  assertRefused(['cancel'], /^Error \[USAGE\]: Not enough non-option arguments/, /^Usage: benchfleet cancel <run>/);
  // The misspelling is why --out is missing: it is named first.
  assertRefused(['results', 'r1', '--outt', 'x'], /^Error \[USAGE\]: unknown option --outt; did you mean --out\?$/, /^Usage: benchfleet results <run>/);
});

test('a misspelled flag gets the closest option of its own command, a far-off one no suggestion', () => {
  assertRefused(['agent', '--name', 'ryzen', '--nicee', '5'], /^Error \[USAGE\]: unknown option --nicee; did you mean --nice\?$/, /^Usage: benchfleet agent \[options\]/);
  assertRefused(['agent', '--name', 'ryzen', '--frobnicate'], /^Error \[USAGE\]: unknown option --frobnicate$/, /^Usage: benchfleet agent \[options\]/);
  // A subcommand's own options: `kernel run` has --input, which `agent` has not.
  assertRefused(['kernel', 'run', 'aes-cbc-decrypt', '--inptu', 'x', '--hepl', '--max-laod', '3'], /^Error \[USAGE\]: unknown options --inptu \(did you mean --input\?\), --hepl \(did you mean --help\?\), --max-laod$/, /^Usage: benchfleet kernel/);
});

test('a misspelled command is refused with a suggestion', () => {
  assertRefused(['stauts'], /^Error \[USAGE\]: Did you mean status\?$/, /^Usage: benchfleet <command> \[options\]; `benchfleet --help` lists the commands$/);
});

test('a command whose reader has closed the pipe ends quietly, with no EPIPE stack trace', async () => {
  const result = await runCli(['kernels'], { closeStdout: true });
  assert.equal(result.stderr, '');
  assert.equal(result.code, 0);
});

test('`benchfleet status` of an empty fleet says how to start an agent and a run; into a closed pipe (as `| head -1`) it ends quietly; a stopped agent says so once and can be forgotten', async () => {
  const token = 'a-token-that-is-long-enough-here';
  const coordinator: Proc = startBenchfleet(['coordinator', '--listen', '127.0.0.1:0', '--data', join(dir, 'coordinator')], { BENCHFLEET_TOKEN: token });
  try {
    const url = (await coordinator.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] as string;
    const opened = await runCli(['status', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token } });
    assert.equal(opened.code, 0, opened.stderr);
    assert.equal(opened.stdout, `Agents\n${NO_AGENT}\n\nRuns\nno run yet; start one with: npx benchfleet run PLAN --machines NAME[,NAME...] --follow\n`);
    const closed = await runCli(['status', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token }, closeStdout: true });
    assert.equal(closed.stderr, '');
    assert.equal(closed.code, 0);
    // Ctrl-C in the demo reaches an agent twice (the terminal's SIGINT, the demo's SIGTERM): it says "stopped" once.
    const agent = startBenchfleet(['agent', '--coordinator', url, '--name', 'cli-agent', '--state', join(dir, 'cli-agent')], { BENCHFLEET_TOKEN: token, BENCHFLEET_LOG: '' });
    await agent.waitFor(/\[agent cli-agent\] connected to /);
    agent.child.kill('SIGINT');
    agent.child.kill('SIGTERM');
    assert.equal((await agent.exited).code, 0, agent.output());
    assert.deepEqual(agent.output().match(/^\[agent cli-agent\] stopped$/gm), ['[agent cli-agent] stopped'], agent.output());
    // `agents` alone lists them, "last seen" as the dashboard says it, not an ISO time.
    const listed = await runCli(['agents', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token } });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^name +state +cpu +cores +node +load \(1m\) +last seen\n[- ]+\ncli-agent +offline +.+ +(just now|\d+ s ago)\n$/);
    // A machine the coordinator does not know: the refusal says the ones it knows, and the near one.
    const typo = await runCli(['run', 'deploy/plans/demo.json', '--machines', 'cli-agnt', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token } });
    assert.equal(typo.code, 1, typo.stderr);
    assert.match(typo.stderr, /^Error \[UNKNOWN_MACHINE\]: unknown machine: cli-agnt; the machines it knows: cli-agent \(cli-agnt: did you mean cli-agent\?\)$/m);
    // The stopped machine, retired: `agents forget` takes it off the list.
    const forgot = await runCli(['agents', 'forget', 'cli-agent', '--coordinator', url], { env: { BENCHFLEET_TOKEN: token } });
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal(forgot.stdout, 'forgot agent cli-agent; 0 agents left\n');
  } finally {
    await coordinator.stop();
  }
});
