// Parsing HOST:PORT for --listen and --dashboard.
import { BenchfleetError } from '../shared/errors.ts';

export function parseListen(value: string, flag = '--listen'): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new BenchfleetError('USAGE', `${flag} "${value}" is not HOST:PORT (e.g. 127.0.0.1:7420; port 0 picks a free one)`);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}
