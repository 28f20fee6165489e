// Reset policies: how a context is restored to its initial state after an operation.
export const POLICIES = ['whole', 'pages', 'checkpoint', 'tracked', 'fresh'] as const;
export type Policy = (typeof POLICIES)[number];

/** The study's three policies, in the order of its table. */
export const STUDY_POLICIES: readonly Policy[] = ['whole', 'pages', 'checkpoint'];

export function isPolicy(value: unknown): value is Policy {
  return typeof value === 'string' && (POLICIES as readonly string[]).includes(value);
}
