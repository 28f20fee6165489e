// Re-exports of benchfleet's statistics: pure functions over numbers, no I/O.
export * from './sorted-samples.ts';
export * from './quantile.ts';
export * from './interval.ts';
export * from './distributions.ts';
export * from './paired-bootstrap.ts';
export * from './median-interval.ts';
export * from './outliers.ts';
export * from './run-effect.ts';
export * from './run-mean-interval.ts';
export * from './variance-components.ts';
export * from './hierarchical-bootstrap.ts';
export * from './repetition-plan.ts';
