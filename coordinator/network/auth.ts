// Token authentication for agents and control clients. Two roles with their own tokens: an
// agent token lets a machine deliver records and nothing else; a control token starts, cancels,
// follows and downloads runs. (One --token-file may serve as both.) The token travels in the
// HTTP request's `Authorization: Bearer TOKEN` header and is checked there, at the WebSocket
// upgrade or the file request, before a single socket.io frame is read, so an unauthenticated
// peer can never make the coordinator buffer a message. Comparison is constant-time over SHA-256
// digests, so neither a token's content nor its length leaks through timing. Failed logins are
// logged (address, never the token) and limited per address.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BenchfleetError, type ErrorCode } from '../../shared/errors.ts';
import { createLogger } from '../../shared/log.ts';
import { LoginLimiter, type LoginLimit } from './login-limiter.ts';

const log = createLogger('coordinator:auth');

/** A checker bound to the expected token. */
export function tokenChecker(expected: string): (presented: unknown) => boolean {
  const expectedDigest = createHash('sha256').update(expected).digest();
  return (presented) => {
    if (typeof presented !== 'string') return false;
    const digest = createHash('sha256').update(presented).digest();
    return timingSafeEqual(digest, expectedDigest);
  };
}

export type Role = 'agent' | 'control';

export type Verdict = { ok: true; roles: ReadonlySet<Role> } | { ok: false; status: 401 | 429; code: ErrorCode; message: string };

/** The bearer token of an HTTP request, if it has one. */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? (match[1] as string) : null;
}

/** Decides who an HTTP request is: its roles, or why it is refused. */
export class Gatekeeper {
  private readonly agent: (t: unknown) => boolean;
  private readonly control: (t: unknown) => boolean;
  private readonly limiter: LoginLimiter;

  /** `now`: the clock of the login limit (injected by tests). */
  constructor(tokens: { agent: string; control: string }, limit?: LoginLimit, now?: () => number) {
    this.agent = tokenChecker(tokens.agent);
    this.control = tokenChecker(tokens.control);
    this.limiter = new LoginLimiter(limit, now);
  }

  /** The roles a token grants (none for a wrong one). Does not count as a login attempt. */
  rolesOf(token: string | null): Set<Role> {
    const roles = new Set<Role>();
    if (token === null) return roles;
    if (this.agent(token)) roles.add('agent');
    if (this.control(token)) roles.add('control');
    return roles;
  }

  /** One login attempt: refused while the address is over its limit, even with a right token. */
  admit(req: IncomingMessage): Verdict {
    const address = req.socket.remoteAddress ?? 'unknown';
    const { maxFailures } = this.limiter.limit;
    const window = this.limiter.windowSeconds;
    if (this.limiter.blocked(address)) {
      log.warn(`refused a login from ${address}: ${this.limiter.count(address)} failed logins within ${window} s`);
      return { ok: false, status: 429, code: 'RATE_LIMITED', message: `too many failed logins from ${address}; wait ${window} s and check the token` };
    }
    const roles = this.rolesOf(bearerToken(req));
    if (roles.size === 0) {
      const failures = this.limiter.failed(address);
      log.warn(`failed login from ${address} (${req.headers.authorization ? 'wrong token' : 'no token'}; ${failures} of ${maxFailures} allowed within ${window} s)`);
      return { ok: false, status: 401, code: 'AUTH_FAILED', message: 'authentication failed: wrong or missing token' };
    }
    return { ok: true, roles };
  }
}

/** The refusal for a right token of the wrong role. */
export function forbidden(role: Role): BenchfleetError {
  return role === 'agent'
    ? new BenchfleetError('FORBIDDEN', 'this token is not an agent token; agents connect with the coordinator\'s --agent-token-file token')
    : new BenchfleetError('FORBIDDEN', 'this token may not start, cancel, follow or download runs (it is an agent token); use the coordinator\'s --control-token-file token');
}
