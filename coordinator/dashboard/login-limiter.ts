// Failed dashboard logins counted per address, with the coordinator's own limit (auth.ts's
// DEFAULT_LOGIN_LIMIT): past it, the address is refused for the rest of the window, right token
// or not, so the login form cannot be used to guess the control token.
import { DEFAULT_LOGIN_LIMIT, type LoginLimit } from '../auth.ts';

export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly limit: LoginLimit;
  private readonly now: () => number;

  constructor(limit: LoginLimit = DEFAULT_LOGIN_LIMIT, now: () => number = Date.now) {
    this.limit = limit;
    this.now = now;
  }

  /** The failures of `address` within the window. */
  private recent(address: string): number[] {
    const now = this.now();
    const recent = (this.failures.get(address) ?? []).filter((t) => now - t < this.limit.windowMs);
    if (recent.length === 0) this.failures.delete(address);
    else this.failures.set(address, recent);
    return recent;
  }

  blocked(address: string): boolean {
    return this.recent(address).length >= this.limit.maxFailures;
  }

  failed(address: string): void {
    this.failures.set(address, [...this.recent(address), this.now()]);
  }

  get windowSeconds(): number {
    return Math.ceil(this.limit.windowMs / 1000);
  }
}
