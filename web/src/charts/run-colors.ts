// A colour per run of a comparison, all different however many runs: Observable's ten
// categorical colours first, then hues a golden angle apart (about 137.5 degrees, so each new
// hue falls in the widest gap left), at two lightnesses in turn. With the ten alone, run 11
// took run 1's colour and 13 runs could not be told apart.

export const RUN_COLORS = ['#4269d0', '#efb118', '#ff725c', '#6cc5b0', '#3ca951', '#ff8ab7', '#a463f2', '#97bbf5', '#9c6b4e', '#9498a0'];

export function runColors(count: number): string[] {
  return Array.from({ length: count }, (_, i) => RUN_COLORS[i] ?? `hsl(${Math.round(((i - RUN_COLORS.length) * 137.508 + 20) % 360)}, 65%, ${(i - RUN_COLORS.length) % 2 === 0 ? 38 : 55}%)`);
}
