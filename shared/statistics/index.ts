// Re-exports of benchfleet's statistics: pure functions over numbers, no I/O.
export * from './sorted-samples.ts';
export * from './quantile.ts';
export * from './interval.ts';
export * from './paired-bootstrap.ts';
export * from './variance-components.ts';
export * from './hierarchical-bootstrap.ts';
export * from './repetition-plan.ts';
