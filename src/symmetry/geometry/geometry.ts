import { quote, SpecError, TooLargeError } from '../../errors.js';

/**
 * A declared geometry: the positions attention runs over, as a G-set X (seed 001, "The End to
 * Equivariant Kernels": the admissible kernels are the end ∫_g 𝒞(g·(X×X), g·End(Y))).
 *
 *   seq(T)           a window of T positions of ℤ, shifted by translations (a partial action:
 *                    a shift is defined where it stays in the window)
 *   seq(T,causal)    the same with the invariant relation k ≤ q (a query sees the keys before it)
 *   seq(T,rotary)    the same group acting also on the heads' queries and keys, by the orthogonal
 *                    representation the solver derives (RoPE); `causal` and `rotary` combine
 *   cyclic(T)        ℤ/T acting on T positions on a ring
 *   grid(H,W)        an H×W window of ℤ², shifted by 2-D translations
 *   grid(H,W,D4)     the same with the square's rotations and reflections (the wallpaper group p4m)
 *   set(n)           S(n) permuting n elements
 *   points(n[,lmax]) n points in R³ whose coordinates travel with the features, E(3) × S(n);
 *                    value maps up to degree lmax (default 1)
 */
export type Geometry =
  | { readonly kind: 'seq'; readonly T: number; readonly causal: boolean; readonly rotary: boolean }
  | { readonly kind: 'cyclic'; readonly T: number }
  | { readonly kind: 'grid'; readonly H: number; readonly W: number; readonly d4: boolean }
  | { readonly kind: 'set'; readonly n: number }
  | { readonly kind: 'points'; readonly n: number; readonly lmax: number };

/**
 * What a declared geometry may ask for: at most 4096 positions on a finite geometry (the solver
 * visits the 4096² pairs once), at most 256 points in a point cloud (all n(n−1) pairs are edges),
 * and value maps of degree at most 4 (the Clebsch–Gordan coefficients derived up to there).
 */
export const GEOMETRY_LIMITS = { positions: 4096, points: 256, lmax: 4 } as const;

/** The forms a geometry is written in, for help texts and errors. */
export const GEOMETRY_FORMS = ['seq(T)', 'seq(T,causal)', 'seq(T,rotary)', 'cyclic(T)', 'grid(H,W)', 'grid(H,W,D4)', 'set(n)', 'points(n[,lmax])'] as const;

const FORM = /^([a-z]+)\((.*)\)$/;

/** Whether a position argument of attention is a geometry (and not rope, relative, absolute(T) or none). */
export function isGeometryText(text: string): boolean {
  const m = FORM.exec(text.replace(/\s+/g, ''));
  return m !== null && ['seq', 'cyclic', 'grid', 'set', 'points'].includes(m[1]!);
}

/** A geometry from its text, e.g. `seq(64,causal)`, `grid(7,7,D4)`, `points(5,1)`. */
export function parseGeometry(text: string): Geometry {
  const src = String(text).replace(/\s+/g, '');
  const fail = (what: string): never => {
    throw new SpecError(`geometry ${quote(text)}: ${what}`);
  };
  const m = FORM.exec(src);
  if (!m) return fail(`expected one of ${GEOMETRY_FORMS.join(', ')}`);
  const name = m[1]!;
  const args = m[2] === '' ? [] : m[2]!.split(',');
  const count = (k: number): number => {
    const a = args[k];
    if (a === undefined || !/^\d+$/.test(a))
      return fail(`argument ${k + 1} of ${name}(…) must be a positive integer, got ${a === undefined ? 'nothing' : quote(a)}`);
    const v = Number(a);
    if (v < 1) fail(`argument ${k + 1} of ${name}(…) must be a positive integer, got ${v}`);
    return v;
  };
  const positions = (what: string, n: number): number => {
    if (n > GEOMETRY_LIMITS.positions)
      throw new TooLargeError(`geometry ${quote(text)}: ${what} = ${n} positions; at most ${GEOMETRY_LIMITS.positions}`, { elements: n });
    return n;
  };
  const arity = (lo: number, hi: number): void => {
    if (args.length < lo || args.length > hi) fail(`${name}(…) takes ${lo === hi ? lo : `${lo} to ${hi}`} argument(s), got ${args.length}`);
  };
  switch (name) {
    case 'seq': {
      arity(1, 3);
      const T = positions('T', count(0));
      const flags = args.slice(1);
      for (const f of flags) if (f !== 'causal' && f !== 'rotary') fail(`seq(T,…) takes the options causal and rotary, got ${quote(f)}`);
      if (new Set(flags).size !== flags.length) fail('an option of seq(T,…) is given twice');
      return { kind: 'seq', T, causal: flags.includes('causal'), rotary: flags.includes('rotary') };
    }
    case 'cyclic':
      arity(1, 1);
      return { kind: 'cyclic', T: positions('T', count(0)) };
    case 'grid': {
      arity(2, 3);
      const H = count(0),
        W = count(1);
      positions('H·W', H * W);
      if (args.length === 3 && args[2] !== 'D4') fail(`the group of grid(H,W,…) is D4 (rotations and reflections of the square), got ${quote(args[2]!)}`);
      const d4 = args.length === 3;
      if (d4 && H !== W) fail(`grid(H,W,D4) needs a square grid (the square's rotations map it onto itself), got ${H}×${W}`);
      return { kind: 'grid', H, W, d4 };
    }
    case 'set':
      arity(1, 1);
      return { kind: 'set', n: positions('n', count(0)) };
    case 'points': {
      arity(1, 2);
      const n = count(0);
      if (n < 2) fail(`points(n) needs at least 2 points, got ${n}`);
      if (n > GEOMETRY_LIMITS.points) throw new TooLargeError(`geometry ${quote(text)}: n = ${n} points; at most ${GEOMETRY_LIMITS.points}`, { elements: n });
      const lmax = args.length > 1 ? Number(/^\d+$/.test(args[1]!) ? args[1] : NaN) : 1;
      if (!Number.isInteger(lmax)) fail(`lmax of points(n,lmax) must be an integer, got ${quote(args[1]!)}`);
      if (lmax > GEOMETRY_LIMITS.lmax) throw new TooLargeError(`geometry ${quote(text)}: lmax = ${lmax}; at most ${GEOMETRY_LIMITS.lmax}`, { elements: lmax });
      return { kind: 'points', n, lmax };
    }
    default:
      return fail(`unknown geometry ${quote(name)}; expected one of ${GEOMETRY_FORMS.join(', ')}`);
  }
}

/** The text of a geometry (parseGeometry's inverse). */
export function geometryText(g: Geometry): string {
  switch (g.kind) {
    case 'seq':
      return `seq(${[g.T, ...(g.causal ? ['causal'] : []), ...(g.rotary ? ['rotary'] : [])].join(',')})`;
    case 'cyclic':
      return `cyclic(${g.T})`;
    case 'grid':
      return `grid(${g.H},${g.W}${g.d4 ? ',D4' : ''})`;
    case 'set':
      return `set(${g.n})`;
    case 'points':
      return `points(${g.n}${g.lmax === 1 ? '' : `,${g.lmax}`})`;
  }
}

/** The number of positions of a geometry (tokens, elements or points). */
export function geometrySize(g: Geometry): number {
  switch (g.kind) {
    case 'seq':
    case 'cyclic':
      return g.T;
    case 'grid':
      return g.H * g.W;
    case 'set':
    case 'points':
      return g.n;
  }
}

/** The symmetry group a geometry declares, in words. */
export function geometryGroup(g: Geometry): string {
  switch (g.kind) {
    case 'seq':
      return `ℤ (translations, partial on the window of ${g.T})${g.rotary ? ', acting on queries and keys by the rotary representation' : ''}`;
    case 'cyclic':
      return `ℤ/${g.T} (cyclic shifts)`;
    case 'grid':
      return g.d4
        ? `ℤ² ⋊ D4 (translations, rotations by 90° and reflections; partial on the ${g.H}×${g.W} window)`
        : `ℤ² (translations, partial on the ${g.H}×${g.W} window)`;
    case 'set':
      return `S(${g.n}) (permutations)`;
    case 'points':
      return `E(3) × S(${g.n}) (rotations, reflections and translations of R³; permutations of the points)`;
  }
}
