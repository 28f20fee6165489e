// What an HTTP request's path may name, shared by the coordinator's file routes and the
// dashboard's: percent-decoding that refuses a malformed escape as the client's mistake (400,
// not a crash of the handler and an error in the log per request), and the confinement of a
// relative path to a run folder, so that no listed or requested path reaches outside it.
import { resolve, sep } from 'node:path';
import { BenchfleetError } from '../../shared/errors.ts';

/** One decoded path segment; a malformed escape such as `%ZZ` is a PROTOCOL error. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BenchfleetError('PROTOCOL', `malformed percent-encoding in the request path: ${JSON.stringify(segment.slice(0, 80))}`);
  }
}

/**
 * The absolute path of `relative` (slash-separated) inside `dir`, or null when it would resolve
 * outside it (`..`, an absolute path) or to the folder itself.
 */
export function confinedPath(dir: string, relative: string): string | null {
  const root = resolve(dir);
  const path = resolve(root, relative);
  return path.startsWith(root + sep) ? path : null;
}
