// Dashboard logins. A browser logs in with the control token (POST /login) or with a one-time
// token from a link the coordinator printed (GET /login/once?token=...), and gets a random
// session id in an HttpOnly, SameSite=Strict cookie: the page's scripts cannot read it and no
// other site can make the browser send it. Only SHA-256 digests of session ids and one-time
// tokens are kept, so a heap dump does not hand out logins.
import { createHash, randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'benchfleet_dashboard';
/** A session lasts this long from login. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A one-time link is good for one login within this time. */
export const ONE_TIME_TTL_MS = 60 * 60 * 1000;

const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export class Sessions {
  private readonly sessions = new Map<string, number>();
  private readonly oneTime = new Map<string, number>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** A new session; returns its id for the cookie. */
  create(): string {
    this.prune();
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(digest(id), this.now() + SESSION_TTL_MS);
    return id;
  }

  valid(id: string | undefined): boolean {
    if (id === undefined) return false;
    const expires = this.sessions.get(digest(id));
    return expires !== undefined && expires > this.now();
  }

  end(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  /** A token that logs in once (the link `npm start` prints). */
  createOneTime(): string {
    const token = randomBytes(24).toString('base64url');
    this.oneTime.set(digest(token), this.now() + ONE_TIME_TTL_MS);
    return token;
  }

  /** True, once, for a one-time token that was issued and has not expired. */
  redeemOneTime(token: string): boolean {
    const key = digest(token);
    const expires = this.oneTime.get(key);
    this.oneTime.delete(key);
    return expires !== undefined && expires > this.now();
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expires] of this.sessions) if (expires <= now) this.sessions.delete(key);
    for (const [key, expires] of this.oneTime) if (expires <= now) this.oneTime.delete(key);
  }
}

/** The value of one cookie from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header of a session (Secure when served over TLS). */
export function sessionCookie(id: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
