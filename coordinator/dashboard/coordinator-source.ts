// The adapter from the coordinator to the dashboard's DashboardSource: the coordinator's run
// store and agent list as they stand, and its change events.
import type { Coordinator } from '../server.ts';
import type { DashboardChange, DashboardSource } from './dashboard-source.ts';

export function coordinatorSource(coordinator: Coordinator): DashboardSource {
  const { store } = coordinator;
  return {
    agents: () => coordinator.agentList(),
    runs: () => store.list(),
    run: (runId) => (store.has(runId) ? store.get(runId) : null),
    runDir: (runId) => store.runDir(runId),
    onChange(listener) {
      const onRun = (runId: string): void => listener({ kind: 'run', runId } satisfies DashboardChange);
      const onAgents = (): void => listener({ kind: 'agents' });
      coordinator.events.on('run', onRun);
      coordinator.events.on('agents', onAgents);
      return () => {
        coordinator.events.off('run', onRun);
        coordinator.events.off('agents', onAgents);
      };
    },
  };
}
