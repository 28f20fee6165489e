// Student's t, F and chi-square functions against published table values (Abramowitz &
// Stegun tables 26.7-26.9, to the digits printed there) and against each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binomialHalfCdf, chiSquareQuantile, fSurvival, studentTCdf, studentTQuantile } from '../../analysis/statistics/distributions.ts';

const near = (got: number, want: number, tolerance: number) => assert.ok(Math.abs(got - want) <= tolerance, `${got} vs ${want}`);

test('t quantiles match the printed tables', () => {
  near(studentTQuantile(0.975, 1), 12.706, 5e-4);
  near(studentTQuantile(0.975, 4), 2.776, 5e-4);
  near(studentTQuantile(0.95, 6), 1.943, 5e-4);
  near(studentTQuantile(0.975, 30), 2.042, 5e-4);
  near(studentTQuantile(0.995, 10), 3.169, 5e-4);
  near(studentTQuantile(0.975, 100_000), 1.960, 5e-4);
  assert.equal(studentTQuantile(0.025, 4), -studentTQuantile(0.975, 4));
  near(studentTCdf(studentTQuantile(0.9, 7), 7), 0.9, 1e-10);
});

test('F tail probabilities agree with the table and with t squared', () => {
  // F(1, d) is t(d)^2, so P(F > t^2) = 2 P(T > t).
  for (const [t, d] of [[1.3, 3], [2.5, 9], [4.1, 30]] as const) near(fSurvival(t * t, 1, d), 2 * (1 - studentTCdf(t, d)), 1e-10);
  // Upper 5% points: F(4, 30) = 2.69, F(9, 54) ~ 2.04 (between 2.07 at 50 and 2.04 at 60), F(1, 10) = 4.96.
  near(fSurvival(2.69, 4, 30), 0.05, 5e-4);
  near(fSurvival(4.96, 1, 10), 0.05, 5e-4);
  assert.equal(fSurvival(0, 3, 12), 1);
});

test('chi-square quantiles match the table', () => {
  near(chiSquareQuantile(0.05, 1), 0.00393, 1e-5);
  near(chiSquareQuantile(0.05, 4), 0.711, 5e-4);
  near(chiSquareQuantile(0.95, 10), 18.307, 5e-4);
});

test('binomial(n, 1/2) probabilities are exact sums', () => {
  near(binomialHalfCdf(0, 7), 1 / 128, 1e-15);
  near(binomialHalfCdf(1, 7), 8 / 128, 1e-15);
  assert.equal(binomialHalfCdf(7, 7), 1);
  assert.equal(binomialHalfCdf(-1, 7), 0);
});
