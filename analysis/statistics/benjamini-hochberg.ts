// Benjamini-Hochberg adjusted p-values (Benjamini & Hochberg 1995, step-up): q_(i) =
// min over j ≥ i of m p_(j) / j. Rejecting every q ≤ α keeps the expected share of false flags
// among the flags at α, and when nothing changed anywhere the chance of any flag at α (its
// family-wise error under the complete null), for independent or positively dependent tests.

/**
 * The adjusted p-values, in the order of `p`. `m` is the family's size when `p` holds only its
 * smallest values (every p of the family at or below the largest given): their q are the
 * family's as long as the q that matter are at most the smallest p left out (a left-out p above
 * alpha adds terms m p / j > alpha to the minimum, which cannot move a q at or below alpha).
 */
export function benjaminiHochberg(p: readonly number[], m = p.length): number[] {
  const order = p.map((_, i) => i).sort((a, b) => (p[a] as number) - (p[b] as number));
  const q = new Array<number>(p.length);
  let running = 1;
  for (let rank = p.length; rank >= 1; rank--) {
    const i = order[rank - 1] as number;
    running = Math.min(running, ((p[i] as number) * m) / rank);
    q[i] = running;
  }
  return q;
}
