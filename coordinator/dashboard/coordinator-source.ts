// The adapter from the coordinator to the dashboard's DashboardSource: copies of the
// coordinator's runs and agents as they stand, and its change events.
import type { Coordinator } from '../server.ts';
import type { DashboardChange, DashboardSource } from './dashboard-source.ts';

export function coordinatorSource(coordinator: Coordinator): DashboardSource {
  return {
    agents: () => coordinator.agentList(),
    runs: () => coordinator.runs(),
    run: (runId) => coordinator.run(runId),
    runState: (runId) => coordinator.runState(runId),
    runDir: (runId) => coordinator.store.runDir(runId),
    campaigns: () => coordinator.campaignList(),
    campaign: (campaignId) => coordinator.campaign(campaignId),
    runIndex: () => coordinator.runIndex(),
    onChange(listener) {
      const onRun = (runId: string): void => listener({ kind: 'run', runId } satisfies DashboardChange);
      const onAgents = (): void => listener({ kind: 'agents' });
      const onCampaign = (campaignId: string): void => listener({ kind: 'campaign', campaignId });
      coordinator.events.on('run', onRun);
      coordinator.events.on('agents', onAgents);
      coordinator.events.on('campaign', onCampaign);
      return () => {
        coordinator.events.off('run', onRun);
        coordinator.events.off('agents', onAgents);
        coordinator.events.off('campaign', onCampaign);
      };
    },
  };
}
