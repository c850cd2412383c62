/**
 * Colours of the plots: a categorical palette for series and classes (Tableau 10's order), and
 * two colour maps for values — diverging (classifier outputs around ½: the two class hues
 * through white) and sequential (spreads, disagreements, magnitudes: white to deep purple).
 */

export type Rgb = readonly [number, number, number];

/** Series and classes, in order: class 0 is blue and class 1 orange, the ends of the diverging map. */
export const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'] as const;

export type ColourMap = 'diverging' | 'sequential';

const hex = (h: string): Rgb => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];

/** Stops of each map, evenly spaced on [0, 1]. */
const STOPS: Record<ColourMap, Rgb[]> = {
  diverging: [hex('#1f5f9a'), hex('#6fa8d6'), hex('#f7f7f7'), hex('#f5a25d'), hex('#c4560b')],
  sequential: [hex('#fcfbfd'), hex('#dadaeb'), hex('#9e9ac8'), hex('#6a51a3'), hex('#3f007d')],
};

/** The map's colour at t ∈ [0, 1] (clamped), linearly between its stops; `pale` blends it halfway to white (a background under points). */
export function mapColour(map: ColourMap, t: number, pale = false): Rgb {
  const s = STOPS[map];
  const u = Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0.5)) * (s.length - 1);
  const k = Math.min(s.length - 2, Math.floor(u)),
    f = u - k;
  return s[k]!.map((c, i) => {
    const v = c + (s[k + 1]![i]! - c) * f;
    return Math.round(pale ? 255 - (255 - v) * 0.55 : v);
  }) as unknown as Rgb;
}

export const css = (c: Rgb): string => `rgb(${c[0]},${c[1]},${c[2]})`;

/** A categorical colour blended toward white by `amount` ∈ [0, 1] (class regions under class-coloured points). */
export function paleOf(colour: string, amount = 0.6): Rgb {
  return hex(colour).map((c) => Math.round(c + (255 - c) * amount)) as unknown as Rgb;
}
