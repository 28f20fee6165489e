// A run dispatcher over real run folders in `dir`, without sockets: every machine named is
// connected and online, and takes every plan it is sent at once. For tests that drive record
// batches, cancels and finalization straight through the dispatcher.
import { machineFacts } from '../../agent/machine-facts.ts';
import { AgentRegistry } from '../../coordinator/network/agent-registry.ts';
import { RunDispatch } from '../../coordinator/runs/run-dispatch.ts';
import { RunLifecycle } from '../../coordinator/runs/run-lifecycle.ts';
import { RunStore } from '../../store/run-store.ts';
import type { RunSummary } from '../../shared/protocol/events.ts';

/** `onRunChanged` hears each run change after the dispatcher (a campaign manager under test, say). */
export async function startDispatcher(dir: string, machines: readonly string[], onRunChanged: (run: RunSummary) => void = () => undefined): Promise<{ dispatch: RunDispatch; lifecycle: RunLifecycle; store: RunStore }> {
  const registry = new AgentRegistry(dir);
  for (const m of machines) await registry.connected(m, machineFacts(), `conn-${m}`);
  const store = new RunStore(dir);
  let dispatch: RunDispatch | null = null;
  const lifecycle = new RunLifecycle(store, (run) => {
    dispatch?.runChanged(run);
    onRunChanged(run);
  });
  dispatch = new RunDispatch({
    store,
    lifecycle,
    registry,
    agents: { assign: () => Promise.resolve(true), cancel: () => undefined, isOnline: () => true },
    timing: { assignTimeoutMs: 10_000, machineDeadlineMs: 3_600_000 },
    onReport: () => undefined,
  });
  await dispatch.start();
  return { dispatch, lifecycle, store };
}
