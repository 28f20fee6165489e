// Reset policies: how a context is restored to its initial state after an operation.
export const POLICIES = ['whole', 'pages', 'checkpoint', 'tracked', 'fresh'] as const;
export type Policy = (typeof POLICIES)[number];

export function isPolicy(value: unknown): value is Policy {
  return typeof value === 'string' && (POLICIES as readonly string[]).includes(value);
}
