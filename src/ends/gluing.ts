import { setCoend } from './coend.js';
import { conv2dSame } from './conv.js';
import { classPoints, coverCategory, coverOf, pointFunctor } from './cover.js';
import type { CoverCategory } from './cover.js';
import { FunctorError } from '../category/errors.js';

/** A half-open rectangle [r0, r1) × [c0, c1) of a grid. */
export interface Rect {
  readonly r0: number;
  readonly r1: number;
  readonly c0: number;
  readonly c1: number;
}

/** Patches of size ph × pw every hh rows and hw columns, the last ones clipped, covering the h × w grid. */
export function patchGrid(h: number, w: number, ph: number, pw: number, hh: number, hw: number): Rect[] {
  for (const [k, v] of Object.entries({ h, w, ph, pw, hh, hw })) {
    if (!(Number.isInteger(v) && v >= 1)) throw new FunctorError(`patchGrid: ${k} must be an integer ≥ 1, got ${v}`);
  }
  if (hh > ph || hw > pw)
    throw new FunctorError(`patchGrid: a hop (${hh}×${hw}) larger than the patch (${ph}×${pw}) leaves gaps; the patches must cover the grid`);
  const starts = (n: number, p: number, hop: number): number[] => {
    const s: number[] = [];
    for (let a = 0; ; a += hop) {
      s.push(a);
      if (a + p >= n) break;
    }
    return s;
  };
  const out: Rect[] = [];
  for (const r0 of starts(h, ph, hh)) for (const c0 of starts(w, pw, hw)) out.push({ r0, r1: Math.min(h, r0 + ph), c0, c1: Math.min(w, c0 + pw) });
  return out;
}

const pointsOfRect = (R: Rect, w: number): number[] => {
  const ps: number[] = [];
  for (let i = R.r0; i < R.r1; i++) for (let j = R.c0; j < R.c1; j++) ps.push(i * w + j);
  return ps;
};

/** A local layer: maps values on an rh × rw patch (row-major) to values on the same patch. */
export type LocalLayer = (x: Float64Array, h: number, w: number, origin: { r: number; c: number }) => Float64Array;

export interface GluingResult {
  /** The layer applied to the whole grid at once. */
  readonly global: Float64Array;
  /** The local outputs glued by the coend (overlap-add). */
  readonly glued: Float64Array;
  /** max |glued − global|. */
  readonly maxError: number;
  readonly patches: number;
  readonly overlaps: number;
  /** Objects and arrows of the output cover category. */
  readonly objects: number;
  readonly arrows: number;
  /** |⊔_c Pt(c, c)| and the number of coend classes (= global points when the cover covers). */
  readonly elements: number;
  readonly classes: number;
  readonly points: number;
  /** The output patches V_i and the layer's local output on each (row-major over V_i). */
  readonly outputPatches: readonly Rect[];
  readonly localOutputs: readonly Float64Array[];
}

/**
 * Gluing as a coend (seed 001, "Coends as Bundle Gluing"): the h × w input is cut into
 * overlapping patches U_i with a partition of unity w_i = 1/#{patches containing the point},
 * each piece w_i·x is processed locally on its output patch V_i = U_i grown by the kernel
 * radius, and the local outputs are glued along the cover category of the V_i by the coend of
 * the point functor — on R[Pt] the quotient map ⊕_i R^{V_i} → R^{points} sums each class,
 * i.e. overlap-add. For a layer commuting with translations (the zero-padded convolution),
 * the glued result equals the layer applied globally: by linearity Σ_i conv(w_i x) = conv(x),
 * and by equivariance conv(w_i x) is computed in V_i's own coordinates.
 */
export function glueConvolution(
  x: ArrayLike<number>,
  h: number,
  w: number,
  kernel: ArrayLike<number>,
  kh: number,
  kw: number,
  patch: { ph: number; pw: number; hh: number; hw: number },
  layer?: LocalLayer,
): GluingResult & { cover: CoverCategory } {
  const local: LocalLayer = layer ?? ((v, ph, pw) => conv2dSame(v, ph, pw, kernel, kh, kw));
  const rh = (kh - 1) / 2,
    rw = (kw - 1) / 2;
  const global = conv2dSame(x, h, w, kernel, kh, kw);
  const U = patchGrid(h, w, patch.ph, patch.pw, patch.hh, patch.hw);
  const coverCount = new Float64Array(h * w);
  for (const R of U) for (const t of pointsOfRect(R, w)) coverCount[t]!++;
  // output patches and their local outputs
  const V = U.map((R) => ({ r0: Math.max(0, R.r0 - rh), r1: Math.min(h, R.r1 + rh), c0: Math.max(0, R.c0 - rw), c1: Math.min(w, R.c1 + rw) }));
  const outputs = U.map((R, i) => {
    const Vi = V[i]!,
      vh = Vi.r1 - Vi.r0,
      vw = Vi.c1 - Vi.c0;
    const xi = new Float64Array(vh * vw);
    for (let r = R.r0; r < R.r1; r++) for (let c = R.c0; c < R.c1; c++) xi[(r - Vi.r0) * vw + (c - Vi.c0)] = x[r * w + c]! / coverCount[r * w + c]!;
    return local(xi, vh, vw, { r: Vi.r0, c: Vi.c0 });
  });
  const names = Array.from({ length: h * w }, (_, t) => (h === 1 ? `${t}` : `(${Math.floor(t / w)},${t % w})`));
  const K = coverCategory(
    coverOf(
      names,
      V.map((R) => pointsOfRect(R, w)),
      V.map((_, i) => `V${i}`),
    ),
  );
  const Q = setCoend(pointFunctor(K));
  const over = classPoints(K, Q.classes);
  // the vector in ⊕_c R^{Pt(c,c)}: local outputs on the patches, 0 on the overlaps; π sums each class
  const glued = new Float64Array(h * w);
  Q.classes.forEach((cls, k) => {
    let s = 0;
    for (const e of cls) if (e.object < V.length) s += outputs[e.object]![e.element]!;
    glued[over[k]!] = s;
  });
  let maxError = 0;
  for (let t = 0; t < h * w; t++) maxError = Math.max(maxError, Math.abs(glued[t]! - global[t]!));
  return {
    global,
    glued,
    maxError,
    cover: K,
    patches: V.length,
    overlaps: K.cover.overlaps.length,
    objects: K.category.objects.length,
    arrows: K.category.arrows.length,
    elements: Q.size,
    classes: Q.classes.length,
    points: h * w,
    outputPatches: V,
    localOutputs: outputs,
  };
}
