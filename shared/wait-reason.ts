// Why a machine waits, in the few words a progress bar has room for. The harness explains a
// wait in a full sentence (whose lock, its file, the plan path of the run holding it, the
// limit); a bar at 80 columns has room for about thirty characters, so it names who is waited
// for and on what: "waiting for local-a: timing lock". Plain (not a terminal) output and the
// agent's status line use the same words, so the log and the bar say the same thing; the
// harness's whole sentence stays in the agent's debug log.

const LOCK_HELD = /^the timing lock \S+ is held by pid (\d+)/;
const LOCK_STALE = /^the timing lock \S+ was left by /;
const LOAD = /^waiting for the 1-minute load average \(([\d.]+)\) to fall below ([\d.]+)/;

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The machine of `machines` (other than `self`) that `text` names as a whole word of a path or
 * sentence (e.g. `.../agent-local-a/runs/...`), or null when none or several do.
 */
function namedMachine(text: string, self: string, machines: readonly string[]): string | null {
  const named = machines.filter((m) => m !== self && new RegExp(`(^|[^A-Za-z0-9_.])${escaped(m)}($|[^A-Za-z0-9_.-])`).test(text));
  return named.length === 1 ? (named[0] as string) : null;
}

/**
 * A short "waiting …" for a machine's wait reason `text`: "waiting for local-a: timing lock"
 * when the lock's holder is another machine of the run, "waiting for pid 4242: timing lock"
 * otherwise, "waiting: load 2.31 > 1" for a load wait, "waiting: stale timing lock" for a lock
 * nobody holds any more; any other reason as it is.
 */
export function shortWaitReason(text: string, self: string, machines: readonly string[]): string {
  const held = LOCK_HELD.exec(text);
  if (held) return `waiting for ${namedMachine(text, self, machines) ?? `pid ${held[1] ?? '?'}`}: timing lock`;
  if (LOCK_STALE.test(text)) return 'waiting: stale timing lock (see the agent)';
  const load = LOAD.exec(text);
  if (load) return `waiting: load ${load[1] ?? '?'} > ${load[2] ?? '?'}`;
  return `waiting: ${text}`;
}
