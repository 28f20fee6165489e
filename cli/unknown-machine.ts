// "unknown machine: gamma" says what is wrong but not what would be right: when the coordinator
// refuses a run or campaign for a machine it does not know, the CLI asks it which machines it
// knows and says them, with the closest name when one is near (a typo).
import { BenchfleetError } from '../shared/errors.ts';
import type { ControlToCoordinator } from '../shared/protocol/events.ts';
import { unwrap } from '../shared/protocol/failure.ts';
import { request } from '../shared/protocol/request.ts';
import { closestName } from './closest-name.ts';
import type { ControlSocket } from './control-client.ts';

/** `work`, with an UNKNOWN_MACHINE refusal completed by the machines the coordinator knows. */
export async function naming<T>(socket: ControlSocket, asked: readonly string[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof BenchfleetError && error.code === 'UNKNOWN_MACHINE')) throw error;
    let known: string[];
    try {
      known = unwrap(await request<ControlToCoordinator, 'status'>(socket, 10_000, 'status')).agents.map((a) => a.name).sort();
    } catch {
      throw error;
    }
    const unknown = asked.filter((m) => !known.includes(m));
    const near = unknown.flatMap((m) => {
      const close = closestName(m, known);
      return close === null ? [] : [`${m}: did you mean ${close}?`];
    });
    const list = known.length === 0 ? 'it knows no machine yet: start an agent on each (npx benchfleet agent --coordinator URL --name NAME)' : `the machines it knows: ${known.join(', ')}`;
    throw new BenchfleetError('UNKNOWN_MACHINE', `unknown machine${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}; ${list}${near.length > 0 ? ` (${near.join('; ')})` : ''}`, { cause: error });
  }
}
