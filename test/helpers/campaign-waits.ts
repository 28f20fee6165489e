// Waiting on a campaign over the control socket, and what its recorded decisions must show:
// for the loopback fleet (test/fleet) and the netns hosts (test/netns) alike.
import assert from 'node:assert/strict';
import { type ControlSocket } from '../../cli/control-client.ts';
import { unwrap } from '../../shared/protocol/failure.ts';
import type { CampaignSummary } from '../../shared/protocol/campaign.ts';
import type { ControlToCoordinator } from '../../shared/protocol/events.ts';
import { request } from '../../shared/protocol/request.ts';

/** Follow a campaign until `until` holds for an update; fails loudly after `timeoutMs`. */
export async function campaignWhere(connect: () => Promise<ControlSocket>, id: string, until: (c: CampaignSummary) => boolean, what: string, timeoutMs = 240_000): Promise<CampaignSummary> {
  const socket = await connect();
  try {
    return await new Promise<CampaignSummary>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`campaign ${id}: no update where ${what} within ${timeoutMs / 1000} s`)), timeoutMs);
      const check = (c: CampaignSummary): void => {
        if (c.campaignId !== id || !until(c)) return;
        clearTimeout(timer);
        resolve(c);
      };
      socket.on('campaign:update', check);
      request<ControlToCoordinator, 'campaign:follow'>(socket, 30_000, 'campaign:follow', id).then((answer) => check(unwrap(answer)), reject);
    });
  } finally {
    socket.close();
  }
}

/** The stop rule's decisions as the campaign recorded them: it stopped at the first band within the target from run 3, or at --max-runs. */
export function assertStoppedAtFirstHold(c: CampaignSummary): void {
  const target = c.rule.until ?? NaN;
  const checked = c.bands.filter((b) => b.runs >= 3);
  const holds = checked.findIndex((b) => b.widest !== null && b.widest <= target);
  assert.equal(c.state, 'finished');
  assert.deepEqual(c.bands.map((b) => b.runs), c.runs.map((_, i) => i + 1), 'one band per run, in order');
  if (holds >= 0) {
    assert.equal(c.outcome?.reason, 'converged', JSON.stringify(c.bands));
    assert.equal(c.runs.length, (checked[holds] as { runs: number }).runs, 'stopped at the first run where the rule holds');
  } else {
    assert.equal(c.outcome?.reason, 'max-runs', JSON.stringify(c.bands));
    assert.equal(c.runs.length, c.rule.maxRuns);
    assert.ok((c.outcome?.notConverged.length ?? 0) > 0, 'the cells that did not converge are named');
  }
}

