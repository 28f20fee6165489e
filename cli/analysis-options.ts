// Checks of the options the analysis commands share (`analyze`, `compare`): the bootstrap's
// seed and its number of resamples, refused with a USAGE error that names the flag.
import { BenchfleetError } from '../shared/errors.ts';

export function checkSeed(seed: number, flag = '--seed'): void {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new BenchfleetError('USAGE', `${flag} must be an integer from 0 to 4294967295, got ${seed}`);
}

export function checkResamples(resamples: number, flag = '--resamples'): void {
  if (!Number.isInteger(resamples) || resamples < 100 || resamples > 1_000_000) {
    throw new BenchfleetError('USAGE', `${flag} must be an integer from 100 to 1000000, got ${resamples}`);
  }
}
