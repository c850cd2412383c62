/**
 * Axis ticks in any range: "nice" linear steps (1, 2, 2.5, 5 × 10ᵏ, as in Heckbert's "Nice
 * numbers for graph labels", Graphics Gems 1990), and log axes that keep labelled ticks when
 * the data stay inside one decade. Pure numbers; frame.ts turns them into SVG.
 */

/** A tick: where it sits, and its label ('' for an unlabelled minor tick). */
export interface Tick {
  value: number;
  label: string;
}

const STEPS = [1, 2, 2.5, 5, 10];

/** The nice step for about `target` intervals over [lo, hi]. */
function niceStep(lo: number, hi: number, target: number): number {
  const raw = (hi - lo) / Math.max(1, target);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  return STEPS.map((m) => m * mag).find((s) => s >= raw * (1 - 1e-9))!;
}

/** Multiples of the nice step inside [lo, hi] (integer multiples, so no drift). */
function linearTickValues(lo: number, hi: number, target = 6): number[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return Number.isFinite(lo) ? [lo] : [];
  const step = niceStep(lo, hi, target);
  const out: number[] = [];
  const eps = step * 1e-9;
  for (let k = Math.ceil((lo - eps) / step); k * step <= hi + eps; k++) out.push(Number((k * step).toPrecision(12)));
  return out.map((v) => (Math.abs(v) < eps ? 0 : v));
}

/** Formats one number with `p` significant digits, plainly between 1e-3 and 1e5, else as 2.5e-7. */
function withDigits(v: number, p: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3)
    return v
      .toExponential(Math.max(0, p - 1))
      .replace(/\.?0+e/, 'e')
      .replace('e+', 'e');
  return String(Number(v.toPrecision(p)));
}

/** Labels for tick values: the fewest significant digits that write every value exactly (so 0.25 is not 0.3). */
export function tickLabels(values: readonly number[]): string[] {
  const spacing = values.length > 1 ? Math.min(...values.slice(1).map((v, i) => Math.abs(v - values[i]!))) : Math.abs(values[0] ?? 1) || 1;
  for (let p = 1; p <= 12; p++) {
    const labels = values.map((v) => withDigits(v, p));
    const exact = values.every((v, i) => Math.abs(Number(labels[i]) - v) <= spacing * 1e-6);
    if (exact && new Set(labels).size === labels.length) return labels;
  }
  return values.map((v) => String(v));
}

/** Labelled linear ticks over [lo, hi]. */
export function linearTicks(lo: number, hi: number, target = 6): Tick[] {
  const values = linearTickValues(lo, hi, target);
  const labels = tickLabels(values);
  return values.map((value, i) => ({ value, label: labels[i]! }));
}

/**
 * Ticks of a log axis over [lo, hi] (lo > 0): decades when the range spans two or more (every
 * k-th labelled if there are many, the 2…9 multiples as minor ticks); inside a decade or two the
 * 1-2-5 multiples, then all nine, and for a narrower range linear ticks placed on the log scale —
 * so there are always at least two labelled ticks.
 */
export function logTicks(lo: number, hi: number, target = 6): Tick[] {
  if (!(lo > 0) || !(hi > lo)) return lo > 0 ? [{ value: lo, label: tickLabels([lo])[0]! }] : [];
  const e0 = Math.floor(Math.log10(lo) + 1e-9),
    e1 = Math.ceil(Math.log10(hi) - 1e-9);
  const inside = (v: number): boolean => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  const multiples = (ms: readonly number[]): number[] => {
    const out: number[] = [];
    for (let e = e0; e <= e1; e++) for (const m of ms) out.push(Number((m * Math.pow(10, e)).toPrecision(12)));
    return out.filter(inside);
  };
  const decades = multiples([1]);
  if (decades.length >= 3) {
    const every = Math.ceil(decades.length / target);
    const labelled = decades.filter((v) => Math.round(Math.log10(v)) % every === 0);
    const labels = tickLabels(labelled);
    const minor = decades.length <= 12 ? multiples([2, 3, 4, 5, 6, 7, 8, 9]) : [];
    return [...labelled.map((value, i) => ({ value, label: labels[i]! })), ...minor.map((value) => ({ value, label: '' }))].sort((a, b) => a.value - b.value);
  }
  for (const ms of [
    [1, 2, 5],
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  ]) {
    const values = multiples(ms);
    if (values.length >= 3) {
      const labels = tickLabels(values);
      return values.map((value, i) => ({ value, label: labels[i]! }));
    }
  }
  return linearTicks(lo, hi, Math.min(target, 5)).filter((t) => t.value > 0);
}
