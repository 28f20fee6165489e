// Outliers by the median absolute deviation (Leys, Ley, Klein, Bernard & Licata, "Detecting
// outliers: do not use standard deviation around the mean, use absolute deviation around the
// median", J. Exp. Soc. Psych. 2013), the robust counterpart of Criterion.rs' and pyperf's
// outlier reports. benchfleet reports outliers and never removes them: a median is already
// robust to them, and a dropped value would hide what the machine did.
import { median } from './quantile.ts';
import { sortSamples } from './sorted-samples.ts';

/** 1.4826 MAD estimates the standard deviation of normal data (1 / Phi^-1(3/4)). */
export const MAD_SCALE = 1.4826;
/** Leys et al.'s "moderately conservative" cut-off: 3 scaled MADs from the median. */
export const MAD_THRESHOLD = 3;

/**
 * Indices of the values farther than `threshold` x 1.4826 x MAD from their median, where MAD
 * is the median of |x - median| (not scaled). Fewer than three values, or a MAD of 0 (most
 * values equal, e.g. at the timer's resolution), flag nothing: no spread to measure against.
 */
export function madOutliers(values: readonly number[], threshold = MAD_THRESHOLD): number[] {
  if (values.length < 3) return [];
  const center = median(sortSamples(values, 'values for outliers'));
  const mad = median(sortSamples(values.map((v) => Math.abs(v - center)), 'absolute deviations'));
  if (mad === 0) return [];
  const limit = threshold * MAD_SCALE * mad;
  const out: number[] = [];
  values.forEach((v, i) => {
    if (Math.abs(v - center) > limit) out.push(i);
  });
  return out;
}
