// The coordinator's /control namespace: the control token's role and the protocol version at
// the handshake, then each request (start, status, follow, cancel, campaigns, the agent list,
// and the analyses history, compare, campaign report and report) answered once the data folder
// is loaded.
import type { IncomingMessage } from 'node:http';
import type { Namespace, Socket } from 'socket.io';
import { background } from '../../shared/background.ts';
import { createLogger } from '../../shared/log.ts';
import type { AgentSummary, ControlToCoordinator, CoordinatorToControl } from '../../shared/protocol/events.ts';
import { handshakeVersionRefusal } from '../../shared/protocol/protocol-version.ts';
import { validateControlAuth, validateMachineName, validateRunId } from '../../shared/protocol/validate.ts';
import type { AnalysisAnswers } from '../analyses/analysis-answers.ts';
import type { Campaigns } from '../campaigns/campaigns.ts';
import type { RunDispatch } from '../runs/run-dispatch.ts';
import type { RunLifecycle } from '../runs/run-lifecycle.ts';
import { refusal } from './agent-namespace.ts';
import type { AgentRegistry } from './agent-registry.ts';
import type { Role } from './auth.ts';
import { respond } from './reply.ts';

const log = createLogger('coordinator');

type ControlSocket = Socket<ControlToCoordinator, CoordinatorToControl>;

/** What the control namespace works with, from the coordinator that owns it. */
export interface ControlParts {
  /** Throws unless the upgrade request's token has `role`. */
  requireRole(req: IncomingMessage, role: Role): void;
  /** Resolves once the runs are loaded from the data folder; every request waits for it. */
  loaded: Promise<void>;
  lifecycle: RunLifecycle;
  dispatch: RunDispatch;
  campaigns: Campaigns;
  registry: AgentRegistry;
  events: { emit(event: 'agents'): boolean };
  analyses: AnalysisAnswers;
  agentList(): AgentSummary[];
}

export function serveControl(ns: Namespace<ControlToCoordinator, CoordinatorToControl>, parts: ControlParts): void {
  ns.use((socket, next) => {
    try {
      parts.requireRole(socket.request, 'control');
      const auth = validateControlAuth(socket.handshake.auth);
      const mismatch = handshakeVersionRefusal(auth.protocol, 'client');
      next(mismatch ? refusal(mismatch) : undefined);
    } catch (error) {
      next(refusal(error));
    }
  });
  ns.on('connection', (socket: ControlSocket) => {
    const lifecycle = parts.lifecycle;
    // Every control request is answered once the data folder is loaded (see `loaded`).
    const answer = <T>(ack: unknown, what: string, work: () => Promise<T> | T): void =>
      respond(ack, log, what, async () => {
        await parts.loaded;
        return work();
      });
    socket.on('run:start', (request, ack) => answer(ack, 'run:start', () => parts.dispatch.startRun(request)));
    socket.on('status', (ack) => answer(ack, 'status', () => ({ agents: parts.agentList(), runs: lifecycle.list() })));
    socket.on('run:follow', (rawId, ack) =>
      answer(ack, 'run:follow', async () => {
        const runId = validateRunId(rawId);
        const run = lifecycle.get(runId);
        await socket.join(`run:${runId}`);
        // A follower that arrives after the end gets the report at once (after this answer).
        background(log, `run ${runId}: the report for a late follower`, async () => {
          if (!(await parts.dispatch.isFinal(runId))) return;
          // After this answer: the follower hears of the run before its report.
          await new Promise((answered) => setImmediate(answered));
          await parts.dispatch.sendReport(runId);
        });
        return run;
      }),
    );
    socket.on('run:cancel', (rawId, ack) => answer(ack, 'run:cancel', () => parts.dispatch.cancel(rawId)));
    socket.on('campaign:start', (request, ack) => answer(ack, 'campaign:start', () => parts.campaigns.start(request)));
    socket.on('campaign:list', (ack) => answer(ack, 'campaign:list', () => parts.campaigns.list()));
    socket.on('campaign:follow', (rawId, ack) =>
      answer(ack, 'campaign:follow', async () => {
        const campaign = parts.campaigns.get(rawId);
        await socket.join(`campaign:${campaign.campaignId}`);
        return campaign;
      }),
    );
    socket.on('campaign:cancel', (rawId, ack) => answer(ack, 'campaign:cancel', () => parts.campaigns.cancel(rawId)));
    socket.on('agents:forget', (rawName, ack) =>
      answer(ack, 'agents:forget', async () => {
        await parts.registry.forget(validateMachineName(rawName));
        parts.events.emit('agents');
        return parts.agentList();
      }),
    );
    socket.on('history', (request, ack) => answer(ack, 'history', () => parts.analyses.history(request)));
    socket.on('compare', (request, ack) => answer(ack, 'compare', () => parts.analyses.compare(request)));
    socket.on('campaign:report', (rawId, ack) => answer(ack, 'campaign:report', () => parts.analyses.campaign(rawId)));
    socket.on('report', (request, ack) => answer(ack, 'report', () => parts.analyses.report(request)));
  });
}
