// Where a token comes from, for every side that presents or checks one: the coordinator (its
// agent and control tokens), the agent and the control commands. It lives with the contract so
// that a client does not import the coordinator to read its own token.
import { readFile, stat } from 'node:fs/promises';
import { BenchfleetError } from './errors.ts';
import { createLogger } from './log.ts';

const log = createLogger('token-file');

export const TOKEN_ENV = 'BENCHFLEET_TOKEN';

/** The token from a file (first line, trimmed) or the environment; an error when neither gives one. */
export async function loadToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv = process.env, flag = '--token-file'): Promise<string> {
  let token: string | undefined;
  if (tokenFile) {
    try {
      token = (await readFile(tokenFile, 'utf8')).split('\n')[0]?.trim();
    } catch {
      throw new BenchfleetError('FILE_NOT_FOUND', `cannot read ${flag} ${tokenFile}`);
    }
    if (!token) throw new BenchfleetError('AUTH_FAILED', `${flag} ${tokenFile} is empty`);
    await warnIfReadableByOthers(tokenFile, flag);
  } else {
    token = env[TOKEN_ENV]?.trim();
  }
  if (!token) throw new BenchfleetError('AUTH_FAILED', `no token: give ${flag} FILE or set ${TOKEN_ENV}`);
  if (token.length < 16) throw new BenchfleetError('AUTH_FAILED', 'the token is shorter than 16 characters; make a longer one (e.g. `openssl rand -hex 32`)');
  return token;
}

/** A token file others can read is a token others have: say so (the run goes on). */
async function warnIfReadableByOthers(path: string, flag: string): Promise<void> {
  if (process.platform === 'win32') return;
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) !== 0) log.warn(`${flag} ${path} is readable by ${mode & 0o007 ? 'other users' : 'its group'} (mode ${mode.toString(8).padStart(3, '0')}); \`chmod 600 ${path}\``);
}
