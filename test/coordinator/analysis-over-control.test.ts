// `history`, `compare` and `campaign report` through a real coordinator (127.0.0.1, port 0,
// in this process) give byte for byte the stdout, stderr and exit code they give on its data
// folder: the CLI a CI runner runs, in a child process, with only the URL and the control token.
// A wrong token is the connection's AUTH_FAILED, an unknown run the folder's UNKNOWN_RUN, and
// neither --data nor --coordinator a usage error that names both.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { exitCodeOf, BenchfleetError } from '../../shared/errors.ts';
import { CAMPAIGN_SCHEMA_VERSION, CampaignStore, type StoredCampaign } from '../../store/campaign-store.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/in-process-coordinator.ts';
import { writeIndexedRuns } from '../helpers/indexed-runs.ts';
import { runCli, type CliResult } from '../helpers/run-cli.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { writeFinishedRun } from '../helpers/stored-runs.ts';
import { tempDirSync } from '../helpers/temp-dir.ts';

// Closed before the data folder goes: hooks run in the order they were registered.
let coordinator: TestCoordinator | undefined;
after(async () => {
  await coordinator?.close();
});
const dataDir = tempDirSync({ after }, 'bf-analysis-control-');
const CAMPAIGN_ID = '20261201-120000-abcdef';
const compared: string[] = [];

/** The environment of a CI runner: the control token, and no coordinator unless a flag names it. */
const env = (token: string): NodeJS.ProcessEnv => ({ BENCHFLEET_TOKEN: token, BENCHFLEET_COORDINATOR: '' });

before(async () => {
  // Twelve nightly runs; sha256 drops 30% in the newest, which the history gate must catch.
  await writeIndexedRuns(dataDir, { planName: 'nightly', runs: 12, machines: ['m1', 'm2'], policies: ['pages'], kernels: ['sha256', 'crc32'], arms: ['taskpool-2-batched'], seed: 5, steps: [{ run: 11, machine: 'm1', kernel: 'sha256', arm: 'taskpool-2-batched', factor: 0.7 }] });
  // Three runs with raw files, 20% apart in the last: compare's and the campaign's.
  const spec = { planName: 'spread', machines: ['m1'], policies: ['pages' as const], kernels: ['sha256'], arms: ['native', 'taskpool-2-batched'], rounds: 6, repeats: 2 };
  for (const [i, shift] of [0, 0.01, Math.log(0.8)].entries()) compared.push(await writeFinishedRun(dataDir, { ...spec, seed: 40 + i, shift, createdAt: `2026-11-0${i + 1}T02:00:00.000Z` }));
  const campaign: StoredCampaign = {
    schema: CAMPAIGN_SCHEMA_VERSION,
    campaignId: CAMPAIGN_ID,
    planName: 'spread',
    planSha256: 'f'.repeat(64),
    machines: ['m1'],
    createdAt: '2026-12-01T12:00:00.000Z',
    rule: { runs: 3, until: 0.05, maxRuns: 3, maxHours: null, spacingMs: 0, jitterMs: 0, kernels: null, arm: null },
    state: 'finished',
    runs: compared.map((runId) => ({ runId, state: 'completed', createdAt: '2026-12-01T12:00:00.000Z', dropped: [] })),
    nextStartAt: null,
    progress: 'widest cell m1 pages sha256 ±20.0%, target ±5.0%',
    cells: [],
    bands: [],
    outcome: { reason: 'planned-runs', message: 'made its 3 planned runs', notConverged: [] },
    pendingRunId: null,
    evaluatedRuns: 3,
  };
  await new CampaignStore(dataDir).create(campaign, '{}');
  coordinator = await startTestCoordinator({ dataDir });
  // The index the coordinator opened at its start has caught up with the runs written above.
  assert.equal((await coordinator.coordinator.runIndex())?.runCount(), 15);
});

function running(): TestCoordinator {
  assert.ok(coordinator, 'the coordinator started');
  return coordinator;
}

/** The command on the data folder and through the coordinator, at the same time; both results. */
async function bothWays(args: readonly string[]): Promise<{ data: CliResult; remote: CliResult }> {
  const { url, token } = running();
  const [data, remote] = await Promise.all([runCli([...args, '--data', dataDir], { env: env(token) }), runCli([...args, '--coordinator', url], { env: env(token) })]);
  return { data, remote };
}

function assertSame({ data, remote }: { data: CliResult; remote: CliResult }): void {
  assert.equal(remote.code, data.code, `--data said: ${data.stderr}\n--coordinator said: ${remote.stderr}`);
  assert.equal(remote.stderr, data.stderr);
  assert.equal(remote.stdout, data.stdout);
}

test('history --coordinator --fail-on regression prints what --data prints and exits 3 on the flagged cell', async () => {
  const gate = await bothWays(['history', '--plan', 'nightly', '--last', '1', '--fail-on', 'regression']);
  assertSame(gate);
  assert.equal(gate.data.code, 3, gate.data.stderr);
  assert.match(gate.data.stderr, /^history: --fail-on regression: 1 regressed cell\(s\):\n {2}m1 \/ pages \/ sha256 \/ taskpool-2-batched: -\d+\.\d% from run hist-00005-00011\n$/);
  // A narrower view, the other formats: the same bytes.
  assertSame(await bothWays(['history', '--plan', 'nightly', '--machine', 'm1', '--kernel', 'sha256', '--csv']));
  const asJson = await bothWays(['history', '--plan', 'nightly', '--machine', 'm1', '--json']);
  assertSame(asJson);
  const json = JSON.parse(asJson.remote.stdout) as { runs: unknown[]; regressions: { machine: string; kernel: string; at: string }[] };
  assert.equal(json.runs.length, 12);
  assert.deepEqual(json.regressions.map((r) => [r.machine, r.kernel, r.at]), [['m1', 'sha256', 'hist-00005-00011']]);
});

test('the dashboard\'s History API and history --coordinator give the same series and flags', async () => {
  const { coordinator: fleet, url, token } = running();
  const dashboard = await startDashboard(fleet, { host: '127.0.0.1', port: 0 }, tokenChecker(token));
  try {
    const login = await fetch(new URL(dashboard.oneTimeLoginUrl('/history')), { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const cell = { plan: 'nightly', machine: 'm1', policy: 'pages', arm: 'taskpool-2-batched' };
    const page = await fetch(`${dashboard.url}/api/history?${new URLSearchParams(cell).toString()}`, { headers: { cookie } });
    assert.equal(page.status, 200);
    const shown = (await page.json()) as { series: { kernel: string; changes: unknown[] }[] };
    const cli = await runCli(['history', '--coordinator', url, ...Object.entries(cell).flatMap(([k, v]) => [`--${k}`, v]), '--json'], { env: env(token) });
    assert.equal(cli.code, 0, cli.stderr);
    const printed = JSON.parse(cli.stdout) as { series: { kernel: string; changes: unknown[] }[] };
    assert.deepEqual(printed.series, shown.series);
    assert.deepEqual(printed.series.map((s) => [s.kernel, s.changes.length]), [['crc32', 0], ['sha256', 1]]);
  } finally {
    await dashboard.close();
  }
});

test('history --coordinator with no regression in the shown runs exits 0 like --data', async () => {
  const calm = await bothWays(['history', '--plan', 'nightly', '--machine', 'm2', '--last', '1', '--fail-on', 'regression']);
  assertSame(calm);
  assert.equal(calm.data.code, 0, calm.data.stderr);
});

test('compare --coordinator A B C prints what --data prints and trips the same gate', async () => {
  const result = await bothWays(['compare', ...compared, '--resamples', '1000', '--fail-on', 'unstable']);
  assertSame(result);
  assert.equal(result.data.code, 3, result.data.stderr);
  assert.match(result.data.stderr, /^compare: --fail-on unstable: 1 group\(s\) unstable/);
  assertSame(await bothWays(['compare', compared[0] as string, compared[1] as string, '--json', '--resamples', '1000', '--seed', '7']));
});

test('compare --coordinator with an unknown run gives the data folder\'s UNKNOWN_RUN error', async () => {
  const result = await bothWays(['compare', compared[0] as string, '20991231-000000-zzzzzz']);
  assertSame(result);
  assert.equal(result.data.code, exitCodeOf(new BenchfleetError('UNKNOWN_RUN', '')));
  assert.equal(result.data.stderr, `Error [UNKNOWN_RUN]: "20991231-000000-zzzzzz" is neither a folder nor a run in ${join(dataDir, 'runs')}; \`benchfleet status\` lists the runs\n`);
});

test('campaign report --coordinator prints what --data prints, cells computed anew', async () => {
  const markdown = await bothWays(['campaign', 'report', CAMPAIGN_ID, '--markdown']);
  assertSame(markdown);
  assert.equal(markdown.data.code, 0, markdown.data.stderr);
  const asJson = await runCli(['campaign', 'report', CAMPAIGN_ID, '--json', '--coordinator', running().url], { env: env(running().token) });
  const json = JSON.parse(asJson.stdout) as { campaign: { cells: { runs: number }[] } };
  assert.deepEqual(json.campaign.cells.map((c) => c.runs), [3], 'the cells were computed from the three runs (campaign.json holds none)');
  const unknown = await bothWays(['campaign', 'report', '20261201-120000-zzzzzz']);
  assertSame(unknown);
  assert.match(unknown.data.stderr, /^Error \[UNKNOWN_CAMPAIGN\]: no campaign 20261201-120000-zzzzzz in /);
});

test('report RUN --coordinator prints what report DATA/runs/RUN prints, in every format but --html', async () => {
  const { url, token } = running();
  const folders = compared.map((id) => join(dataDir, 'runs', id));
  for (const format of [['--markdown', '--intervals'], ['--json', '--arm', 'all']]) {
    const [here, remote] = await Promise.all([runCli(['report', ...folders, ...format], { env: env(token) }), runCli(['report', ...compared, ...format, '--coordinator', url], { env: env(token) })]);
    assert.equal(here.code, 0, here.stderr);
    assert.deepEqual(remote, here, format.join(' '));
  }
  const html = await runCli(['report', compared[0] as string, '--html', 'x.html', '--coordinator', url], { env: env(token) });
  assert.equal(html.code, 2);
  assert.match(html.stderr, /^Error \[USAGE\]: --html needs the runs' files here: copy a run with `benchfleet results RUN --out DIR`/);
  const unknown = await runCli(['report', '20991231-000000-zzzzzz', '--coordinator', url], { env: env(token) });
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'Error [UNKNOWN_RUN]: no run 20991231-000000-zzzzzz on this coordinator; `benchfleet status` lists the runs\n');
});

test('a wrong control token is the coordinator\'s AUTH_FAILED and its exit code, for every command', async () => {
  const wrong = { BENCHFLEET_TOKEN: 'x'.repeat(32), BENCHFLEET_COORDINATOR: running().url };
  const status = await runCli(['status'], { env: wrong });
  assert.match(status.stderr, /^Error \[AUTH_FAILED\]: the coordinator refused this client: /);
  // Every command asks through the same connection (cli/analysis-source.ts): two of them stand for all.
  for (const args of [['history', '--plan', 'nightly'], ['report', ...compared]]) {
    const refused = await runCli(args, { env: wrong });
    assert.equal(refused.stdout, '');
    assert.equal(refused.stderr, status.stderr, args.join(' '));
    assert.equal(refused.code, exitCodeOf(new BenchfleetError('AUTH_FAILED', '')));
    assert.equal(refused.code, status.code);
  }
});

test('history, campaign report and compare of run ids without --data or --coordinator are a usage error that names both', async () => {
  for (const args of [['history', '--plan', 'nightly'], ['campaign', 'report', CAMPAIGN_ID]]) {
    const result = await runCli(args, { env: env(running().token) });
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /^Error \[USAGE\]: give --data DIR \(the coordinator's data folder\) or --coordinator URL \(or set BENCHFLEET_COORDINATOR\) with a control token\n/);
  }
  const ids = await runCli(['compare', ...compared], { env: env(running().token) });
  assert.equal(ids.code, 2, ids.stderr);
  assert.match(ids.stderr, /^Error \[USAGE\]: "[^"]+" is not a folder here; to name a run by id, give the coordinator's data folder with --data DIR, or the coordinator with --coordinator URL \(or set BENCHFLEET_COORDINATOR\) and a control token\n/);
  const both = await runCli(['history', '--plan', 'nightly', '--data', dataDir, '--coordinator', running().url], { env: env(running().token) });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /^Error \[USAGE\]: give --data DIR or --coordinator URL, not both\n/);
});

test('$BENCHFLEET_COORDINATOR alone sends history and run ids to the coordinator, and result folders stay local', async () => {
  const { url, token } = running();
  const viaEnv = { BENCHFLEET_TOKEN: token, BENCHFLEET_COORDINATOR: url };
  // Run ids with no --data: only the coordinator knows them (here they would be UNKNOWN_RUN).
  // Folders by path: read here (the coordinator would refuse a path with USAGE).
  const folders = compared.slice(0, 2).map((id) => join(dataDir, 'runs', id));
  const [history, ids, byPath] = await Promise.all([
    runCli(['history', '--plan', 'nightly', '--last', '1', '--fail-on', 'regression'], { env: viaEnv }),
    runCli(['compare', ...compared.slice(0, 2), '--json', '--resamples', '1000'], { env: viaEnv }),
    runCli(['compare', ...folders, '--json', '--resamples', '1000'], { env: viaEnv }),
  ]);
  assert.equal(history.code, 3, history.stderr);
  assert.match(history.stderr, /^history: --fail-on regression: 1 regressed cell\(s\)/);
  assert.equal(ids.code, 0, ids.stderr);
  assert.equal(byPath.code, 0, byPath.stderr);
  const runsOf = (stdout: string): string[] => (JSON.parse(stdout) as { runs: string[] }).runs;
  assert.deepEqual(runsOf(ids.stdout), compared.slice(0, 2));
  assert.deepEqual(runsOf(byPath.stdout), compared.slice(0, 2));
});

test('analysis requests from the wire are validated: a path for a run id, a missing plan and too many runs are PROTOCOL refusals naming the field', async () => {
  const socket = await running().control();
  const options = { seed: 1, resamples: 1000, target: 0.05, runCostSeconds: 60, margin: 0.05, alpha: 0.05, includeFailed: false };
  const refusals = [
    await request<ControlToCoordinator, 'compare'>(socket, 10_000, 'compare', { runs: ['../../etc'], options }),
    await request<ControlToCoordinator, 'compare'>(socket, 10_000, 'compare', { runs: Array.from({ length: 51 }, () => compared[0] as string), options }),
    await request<ControlToCoordinator, 'history'>(socket, 10_000, 'history', { plan: '', direction: 'lower-is-worse', alpha: 0.05, window: 20 }),
    await request<ControlToCoordinator, 'report'>(socket, 10_000, 'report', { runs: ['/tmp'] }),
  ];
  assert.deepEqual(refusals, [
    { ok: false, code: 'PROTOCOL', message: 'compare.runs[0] must be a run id (letters, digits, - and _)' },
    { ok: false, code: 'PROTOCOL', message: 'compare.runs must list 1 to 50 run ids' },
    { ok: false, code: 'PROTOCOL', message: 'history.plan must be a string of 1 to 256 characters' },
    { ok: false, code: 'PROTOCOL', message: 'report.runs[0] must be a run id (letters, digits, - and _)' },
  ]);
});
