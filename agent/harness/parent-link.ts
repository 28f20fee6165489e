// The harness's side of its IPC channel to the parent that started it (the agent, or
// `harness` re-executing itself), as shared/harness-contract.ts defines it: events up, the
// quiet-window handshake, and exiting when the parent is gone.
import { HARNESS_EXIT, isResumeMessage, type HarnessEvent } from '../../shared/harness-contract.ts';

/**
 * After each sample: tell the parent that nothing is being timed and wait until it says resume
 * (it has streamed what it had), or `limitMs` at most, so a silent parent cannot stall the run.
 */
export function quietWindow(limitMs: number): (() => Promise<void>) | undefined {
  if (limitMs <= 0 || typeof process.send !== 'function') return undefined;
  return async () => {
    if (!process.connected) return;
    let onMessage: (message: unknown) => void = () => undefined;
    let timer: NodeJS.Timeout | undefined;
    const resumed = new Promise<void>((resolve) => {
      onMessage = (message) => {
        if (isResumeMessage(message)) resolve();
      };
      timer = setTimeout(resolve, limitMs);
      process.on('message', onMessage);
    });
    try {
      await sendEvent({ type: 'quiet' });
      await resumed;
    } finally {
      clearTimeout(timer);
      process.off('message', onMessage);
    }
  };
}

/** Send one event to the parent and wait until it has been handed to the channel. */
export function sendEvent(event: HarnessEvent): Promise<void> {
  const send = process.send?.bind(process);
  if (!send || !process.connected) return Promise.resolve();
  return new Promise((resolve) => {
    send(event, undefined, {}, () => resolve());
  });
}

/** The watch bin/benchfleet.js sets before any import; exitWithParent takes it over. */
const EARLY_PARENT_WATCH = Symbol.for('benchfleet.harness.earlyParentWatch');

/**
 * With an IPC parent (the agent), the channel closing means the parent is gone (even SIGKILLed):
 * stop at once rather than keep timing for nobody while holding the machine's timing lock (the
 * lock goes with the process's exit). A channel that closed before this was called (the parent
 * died while the harness was starting) stops the process here. Returns the function that
 * removes the watch.
 */
export function exitWithParent(onGone: () => void = () => undefined): () => void {
  if (typeof process.send !== 'function') return () => undefined;
  const gone = (): void => {
    onGone();
    process.stderr.write('harness: the parent process is gone; stopping (the samples written so far are kept)\n');
    process.exit(HARNESS_EXIT.parentGone);
  };
  process.once('disconnect', gone);
  const global = globalThis as Record<symbol, unknown>;
  const early = global[EARLY_PARENT_WATCH];
  if (typeof early === 'function') {
    process.off('disconnect', early as () => void);
    delete global[EARLY_PARENT_WATCH];
  }
  if (!process.connected) gone();
  return () => process.off('disconnect', gone);
}
