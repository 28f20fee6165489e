// Benjamini-Hochberg adjusted p-values (Benjamini & Hochberg 1995, step-up): q_(i) =
// min over j ≥ i of m p_(j) / j. Rejecting every q ≤ α keeps the expected share of false flags
// among the flags at α, and when nothing changed anywhere the chance of any flag at α (its
// family-wise error under the complete null), for independent or positively dependent tests.

/** The adjusted p-values, in the order of `p`. */
export function benjaminiHochberg(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((_, i) => i).sort((a, b) => (p[a] as number) - (p[b] as number));
  const q = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const i = order[rank - 1] as number;
    running = Math.min(running, ((p[i] as number) * m) / rank);
    q[i] = running;
  }
  return q;
}
