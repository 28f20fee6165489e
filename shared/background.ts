// Work started and not awaited ("fire and forget") still has to end somewhere: a rejection with
// no handler kills the process on Node 20 (--unhandled-rejections=throw). Every such promise goes
// through background(), which logs what failed and goes on; nothing is left unhandled.
import { errorMessage } from './errors.ts';
import type { Logger } from './log.ts';

/**
 * Lets `work` run without waiting for it. A rejection, or a throw from a work function before it
 * returns its promise, is logged as an error `what: message` on `log`; it never propagates.
 */
export function background(log: Logger, what: string, work: Promise<unknown> | (() => unknown)): void {
  let promise: Promise<unknown>;
  try {
    promise = Promise.resolve(typeof work === 'function' ? work() : work);
  } catch (error) {
    promise = Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  promise.catch((error: unknown) => log.error(`${what}: ${errorMessage(error)}`));
}
