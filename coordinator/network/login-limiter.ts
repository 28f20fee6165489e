// Failed logins counted per address, for every door with a token behind it: the coordinator's
// upgrade and file requests (auth.ts's Gatekeeper) and the dashboard's login form. Past the
// limit, the address is refused for the rest of the window, right token or not, so no door can
// be used to guess a token. The clock is injected so the window can be tested without waiting.

export interface LoginLimit {
  /** Failed logins allowed per address within `windowMs`; the next attempt is refused, right token or not. */
  maxFailures: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMIT: LoginLimit = { maxFailures: 10, windowMs: 60_000 };

export class LoginLimiter {
  readonly limit: LoginLimit;
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(limit: LoginLimit = DEFAULT_LOGIN_LIMIT, now: () => number = Date.now) {
    this.limit = limit;
    this.now = now;
  }

  /** The failures of `address` within the window (older ones are forgotten). */
  private recent(address: string): number[] {
    const now = this.now();
    const recent = (this.failures.get(address) ?? []).filter((t) => now - t < this.limit.windowMs);
    if (recent.length === 0) this.failures.delete(address);
    else this.failures.set(address, recent);
    return recent;
  }

  /** How many failed logins `address` has within the window. */
  count(address: string): number {
    return this.recent(address).length;
  }

  blocked(address: string): boolean {
    return this.count(address) >= this.limit.maxFailures;
  }

  /** Count a failed login; returns the address's failures within the window, this one included. */
  failed(address: string): number {
    const recent = [...this.recent(address), this.now()];
    this.failures.set(address, recent);
    return recent.length;
  }

  get windowSeconds(): number {
    return Math.ceil(this.limit.windowMs / 1000);
  }
}
