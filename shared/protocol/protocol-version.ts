// Which wire-protocol version each end speaks, and the refusal when they differ. A client states
// its version in a header of the WebSocket upgrade request, next to its token, so the
// coordinator refuses another version before it reads a token or a frame, with words about
// versions instead of a token error. A client learns the coordinator's version from
// `GET /api/v1/hello`, because socket.io-client cannot read a refused upgrade's answer: the `ws`
// library reports only "Unexpected server response: 400" and drops the body (docs/protocol.md).
import { BenchfleetError } from '../errors.ts';
import { PROTOCOL_VERSION } from './events.ts';

/** The upgrade request's header with the client's protocol version (Node lower-cases header names). */
export const PROTOCOL_HEADER = 'x-benchfleet-protocol';

const SAME_VERSION = 'run the same benchfleet version on both ends';

/** The headers of every client's upgrade request: its token and its protocol version. */
export function upgradeHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, [PROTOCOL_HEADER]: String(PROTOCOL_VERSION) };
}

/**
 * Why the coordinator refuses a client whose upgrade request has `header` as its protocol
 * header, or null when it speaks this version. No header at all is a protocol-1 client: version 1
 * sent its token and version in the socket.io auth payload and had no such header.
 */
export function clientVersionRefusal(header: string | string[] | undefined): BenchfleetError | null {
  if (header === undefined) return refusal(`this client speaks benchfleet protocol 1 (its upgrade request has no X-Benchfleet-Protocol header), this coordinator protocol ${PROTOCOL_VERSION}`);
  const stated = typeof header === 'string' && /^\d{1,6}$/.test(header) ? Number(header) : null;
  if (stated === null) return refusal(`this client's X-Benchfleet-Protocol header ${JSON.stringify(header)} is not a protocol version; this coordinator speaks protocol ${PROTOCOL_VERSION}`);
  return handshakeVersionRefusal(stated, 'client');
}

/** The same check for the version a handshake's auth payload states. */
export function handshakeVersionRefusal(stated: number, who: 'agent' | 'client'): BenchfleetError | null {
  return stated === PROTOCOL_VERSION ? null : refusal(`this ${who} speaks benchfleet protocol ${stated}, this coordinator protocol ${PROTOCOL_VERSION}`);
}

/** On the client's side: the refusal when the coordinator's hello names another version, or null. */
export function coordinatorVersionRefusal(coordinatorVersion: number, who: 'agent' | 'client'): BenchfleetError | null {
  return coordinatorVersion === PROTOCOL_VERSION ? null : refusal(`the coordinator speaks benchfleet protocol ${coordinatorVersion}, this ${who} protocol ${PROTOCOL_VERSION}`);
}

function refusal(versions: string): BenchfleetError {
  return new BenchfleetError('PROTOCOL_MISMATCH', `${versions}; ${SAME_VERSION}`);
}
