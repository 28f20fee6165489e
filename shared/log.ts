// One small logger with a namespace per module. Quiet by default: BENCHFLEET_LOG=debug (or
// info, warn) turns it up; BENCHFLEET_LOG=agent,coordinator limits debug output to namespaces.
// Logs go to stderr so that stdout stays data.

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function configured(): { level: number; namespaces: string[] | null } {
  const raw = (process.env['BENCHFLEET_LOG'] ?? '').trim();
  if (raw === '') return { level: order.warn, namespaces: null };
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
  const { level, namespaces } = configured();
  const enabled = (l: Level): boolean =>
    order[l] >= order.warn || (order[l] >= level && (namespaces === null || namespaces.some((n) => namespace.startsWith(n))));
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
