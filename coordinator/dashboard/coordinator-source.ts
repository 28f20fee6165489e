// The adapter from the coordinator to the dashboard's DashboardSource: copies of the
// coordinator's runs and agents as they stand, and its change events.
import type { Coordinator } from '../server.ts';
import type { DashboardChange, DashboardSource } from './dashboard-source.ts';

export function coordinatorSource(coordinator: Coordinator): DashboardSource {
  return {
    agents: () => coordinator.agentList(),
    runs: () => coordinator.runs(),
    run: (runId) => coordinator.run(runId),
    runDir: (runId) => coordinator.store.runDir(runId),
    runIndex: () => coordinator.runIndex(),
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
