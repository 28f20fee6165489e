// Campaigns on the dashboard's API and over the control socket, with a real in-process
// coordinator and a protocol-level agent that takes its plan and then measures nothing: a
// started campaign is listed and shown, an unknown one is 404, its pages are served, a run
// queued behind it has its place in the Runs list, and
// cancelling it cancels its run in progress and starts no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenChecker } from '../../coordinator/network/auth.ts';
import { startDashboard } from '../../coordinator/dashboard/start-dashboard.ts';
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import { startTestCoordinator } from '../helpers/in-process-coordinator.ts';
import { nativePlan } from '../helpers/test-plans.ts';

test('a campaign is listed and shown by the dashboard while its run is under way; cancelled, its run is cancelled and no other starts', async () => {
  const fleet = await startTestCoordinator();
  const dashboard = await startDashboard(fleet.coordinator, { host: '127.0.0.1', port: 0 }, tokenChecker(fleet.token));
  const agent = await fleet.agent('camp');
  const assigned: string[] = [];
  agent.on('run:assign', (assignment) => assigned.push(assignment.runId));
  try {
    const control = await fleet.control();
    const planText = JSON.stringify(nativePlan('dashboard campaign'));
    const started = unwrap(await request<ControlToCoordinator, 'campaign:start'>(control, 30_000, 'campaign:start', { planText, machines: ['camp'], until: 0.05, maxRuns: 4 }));
    assert.equal(started.state, 'running');
    assert.deepEqual([started.rule.runs, started.rule.until, started.rule.maxRuns], [3, 0.05, 4]);
    const runId = started.runs[0]?.runId ?? '';
    assert.deepEqual(assigned, [runId]);

    const first = await fetch(new URL(dashboard.oneTimeLoginUrl('/campaigns')), { redirect: 'manual' });
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const get = (path: string): Promise<Response> => fetch(`${dashboard.url}${path}`, { headers: { cookie }, redirect: 'manual' });
    const list = (await (await get('/api/campaigns')).json()) as { campaigns: CampaignSummary[] };
    assert.deepEqual(list.campaigns.map((c) => [c.campaignId, c.runs.map((r) => r.runId)]), [[started.campaignId, [runId]]]);
    const one = (await (await get(`/api/campaigns/${started.campaignId}`)).json()) as CampaignSummary;
    assert.equal(one.progress, 'run 1; the rule is checked from run 3');
    assert.equal((await get('/api/campaigns/20991231-000000-nosuch')).status, 404);
    for (const page of ['/campaigns', `/campaigns/${started.campaignId}`]) assert.equal((await get(page)).status, 200, page);
    // A plain run on the busy machine waits in its queue, and the Runs list says where.
    const queued = unwrap(await request<ControlToCoordinator, 'run:start'>(control, 30_000, 'run:start', { planText, machines: ['camp'] }));
    assert.deepEqual(queued.queue, { camp: 1 });
    const runs = (await (await get('/api/runs')).json()) as { runs: { runId: string; machines: { name: string; state: string; queue: number | null }[] }[] };
    assert.deepEqual(runs.runs.find((r) => r.runId === queued.runId)?.machines.map((m) => [m.name, m.state, m.queue]), [['camp', 'queued', 1]]);
    unwrap(await request<ControlToCoordinator, 'run:cancel'>(control, 30_000, 'run:cancel', queued.runId));

    const cancelled = unwrap(await request<ControlToCoordinator, 'campaign:cancel'>(control, 30_000, 'campaign:cancel', started.campaignId));
    assert.equal(cancelled.state, 'cancelled');
    assert.equal(cancelled.outcome?.message, 'cancelled by a control client after 1 run');
    const status = unwrap(await request<ControlToCoordinator, 'status'>(control, 10_000, 'status'));
    assert.deepEqual(status.runs.map((r) => [r.runId, r.machines['camp']?.state]).sort(), [[runId, 'cancelled'], [queued.runId, 'cancelled']].sort());
    const unknown = await request<ControlToCoordinator, 'campaign:follow'>(control, 10_000, 'campaign:follow', '20991231-000000-nosuch');
    assert.equal(unknown.ok ? null : unknown.code, 'UNKNOWN_CAMPAIGN');
    assert.deepEqual(assigned, [runId], 'no further run was sent');
  } finally {
    await dashboard.close();
    await fleet.close();
  }
});
