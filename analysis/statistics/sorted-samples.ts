// Sorted, non-empty samples as a type: a median or percentile takes `SortedSamples`, so it
// can never be given unsorted or empty data (the tinybench pattern). The only ways to get one
// are sortSamples (which copies and sorts) and assertSortedSamples (which checks).
import { BenchfleetError } from '../../shared/errors.ts';

export type Samples = readonly number[];
export type SortedSamples = Samples & { readonly __sorted__: unique symbol };

/** A sorted copy of `values` (ascending); throws on empty input or a non-finite value. */
export function sortSamples(values: Iterable<number>, what = 'samples'): SortedSamples {
  const copy = Array.from(values);
  checkFinite(copy, what);
  copy.sort((a, b) => a - b);
  return copy as unknown as SortedSamples;
}

/** Checks that `values` is non-empty, finite and ascending, and narrows its type. */
export function assertSortedSamples(values: Samples, what = 'samples'): asserts values is SortedSamples {
  checkFinite(values, what);
  for (let i = 1; i < values.length; i++) {
    if ((values[i] as number) < (values[i - 1] as number)) {
      throw new BenchfleetError('RECORD_INVALID', `${what} are not sorted (index ${i}); sort them with sortSamples`);
    }
  }
}

function checkFinite(values: Samples, what: string): void {
  if (values.length === 0) throw new BenchfleetError('RECORD_INVALID', `${what} are empty; a statistic needs at least one value`);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) throw new BenchfleetError('RECORD_INVALID', `${what} hold a non-finite value at index ${i} (${values[i]})`);
  }
}
