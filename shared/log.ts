// One small logger with a namespace per module. Quiet by default: BENCHFLEET_LOG=debug (or
// info, warn) turns it up; BENCHFLEET_LOG=agent,coordinator limits debug output to namespaces.
// Logs go to stderr so that stdout stays data.

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The level without BENCHFLEET_LOG: warn, or what the process's command chose (setDefaultLogLevel). */
let defaultLevel: Level = 'warn';

/**
 * The level a process logs at when BENCHFLEET_LOG does not say: a long-running service (the
 * coordinator) logs at info, so that its log says when agents come and go and runs start and
 * end; a command that draws on the terminal (the demo) stays at warn. Call it before anything
 * logs; loggers already made follow it too.
 */
export function setDefaultLogLevel(level: Level): void {
  defaultLevel = level;
}

function configured(): { level: number; namespaces: string[] | null } {
  const raw = (process.env['BENCHFLEET_LOG'] ?? '').trim();
  if (raw === '') return { level: order[defaultLevel], namespaces: null };
  if (raw in order) return { level: order[raw as Level], namespaces: null };
  return { level: order.debug, namespaces: raw.split(',').map((s) => s.trim()) };
}

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(namespace: string): Logger {
  const { level: fromEnv, namespaces } = configured();
  const fromDefault = (process.env['BENCHFLEET_LOG'] ?? '').trim() === '';
  const enabled = (l: Level): boolean => {
    const level = fromDefault ? order[defaultLevel] : fromEnv;
    return order[l] >= order.warn || (order[l] >= level && (namespaces === null || namespaces.some((n) => namespace.startsWith(n))));
  };
  const write = (l: Level, message: string): void => {
    if (enabled(l)) process.stderr.write(`${new Date().toISOString()} ${l} [${namespace}] ${message}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}
