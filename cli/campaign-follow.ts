// Following a campaign until it has finished or been cancelled: a line each time its progress
// changes (a run starts or ends, the stop rule decides), through a coordinator restart: when
// the connection drops it connects again (for at most `reconnectForMs`) and asks anew.
import { setTimeout as delay } from 'node:timers/promises';
import { BenchfleetError, errorMessage } from '../shared/errors.ts';
import type { CampaignSummary } from '../shared/protocol/campaign.ts';
import type { ControlToCoordinator } from '../shared/protocol/events.ts';
import { request } from '../shared/protocol/request.ts';
import { type ControlSocket } from './control-client.ts';
import { unwrap } from '../shared/protocol/failure.ts';

export function campaignEnded(c: CampaignSummary): boolean {
  return c.state === 'finished' || c.state === 'cancelled';
}

/** What changed, as one line, or null when nothing a person follows changed. */
export function campaignLine(c: CampaignSummary): string {
  const current = c.runs.at(-1);
  const where = c.state === 'waiting' ? `waiting; run ${c.runs.length + 1} starts at ${c.nextStartAt ?? '?'}` : current ? `run ${c.runs.length} (${current.runId}) ${current.state}` : 'starting its first run';
  return `campaign ${c.campaignId}: ${c.outcome ? `${c.state}: ${c.outcome.message}` : `${where}; ${c.progress}`}`;
}

type Attempt = { kind: 'ended'; campaign: CampaignSummary } | { kind: 'lost'; reason: string };

function followOnce(socket: ControlSocket, id: string, show: (c: CampaignSummary) => void): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const finish = (attempt: Attempt): void => {
      socket.off('campaign:update', onUpdate);
      socket.off('disconnect', onDisconnect);
      resolve(attempt);
    };
    const onUpdate = (c: CampaignSummary): void => {
      if (c.campaignId !== id) return;
      show(c);
      if (campaignEnded(c)) finish({ kind: 'ended', campaign: c });
    };
    const onDisconnect = (reason: string): void => finish({ kind: 'lost', reason });
    socket.on('campaign:update', onUpdate);
    socket.on('disconnect', onDisconnect);
    request<ControlToCoordinator, 'campaign:follow'>(socket, 30_000, 'campaign:follow', id).then((answer) => onUpdate(unwrap(answer)), reject);
  });
}

export async function followCampaign(connect: () => Promise<ControlSocket>, id: string, options: { reconnectForMs: number; onLine: (line: string) => void }): Promise<CampaignSummary> {
  let last = '';
  const show = (c: CampaignSummary): void => {
    const line = campaignLine(c);
    if (line !== last) options.onLine(line);
    last = line;
  };
  for (;;) {
    const socket = await connect();
    let attempt: Attempt;
    try {
      attempt = await followOnce(socket, id, show);
    } finally {
      socket.close();
    }
    if (attempt.kind === 'ended') return attempt.campaign;
    options.onLine(`lost the connection to the coordinator (${attempt.reason}); connecting again`);
    const until = Date.now() + options.reconnectForMs;
    for (;;) {
      try {
        (await connect()).close();
        break;
      } catch (error) {
        if (Date.now() > until) throw new BenchfleetError('CONNECTION', `could not reconnect to follow campaign ${id}: ${errorMessage(error)}`);
        await delay(1000);
      }
    }
  }
}
