// Shared-token authentication for agents and control clients. The token comes from
// --token-file or BENCHFLEET_TOKEN; comparison is constant-time over SHA-256 digests so that
// neither the token's content nor its length leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { BenchfleetError } from '../shared/errors.ts';

export const TOKEN_ENV = 'BENCHFLEET_TOKEN';

/** The token from a file (first line, trimmed) or the environment; an error when neither gives one. */
export async function loadToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  let token: string | undefined;
  if (tokenFile) {
    try {
      token = (await readFile(tokenFile, 'utf8')).split('\n')[0]?.trim();
    } catch {
      throw new BenchfleetError('FILE_NOT_FOUND', `cannot read --token-file ${tokenFile}`);
    }
    if (!token) throw new BenchfleetError('AUTH_FAILED', `--token-file ${tokenFile} is empty`);
  } else {
    token = env[TOKEN_ENV]?.trim();
  }
  if (!token) throw new BenchfleetError('AUTH_FAILED', `no token: give --token-file FILE or set ${TOKEN_ENV}`);
  if (token.length < 16) throw new BenchfleetError('AUTH_FAILED', 'the token is shorter than 16 characters; make a longer one (e.g. `openssl rand -hex 32`)');
  return token;
}

/** A checker bound to the expected token. */
export function tokenChecker(expected: string): (presented: unknown) => boolean {
  const expectedDigest = createHash('sha256').update(expected).digest();
  return (presented) => {
    if (typeof presented !== 'string') return false;
    const digest = createHash('sha256').update(presented).digest();
    return timingSafeEqual(digest, expectedDigest);
  };
}
