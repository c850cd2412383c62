import { formatBytes, formatCount, RangeArgError, SolveTooLargeError } from '../../errors.js';
import { pairOrbits } from '../solve/orbits.js';
import type { FiniteAction } from './action.js';

/**
 * The G-invariant kernels on X×X of a finite geometry: K(g·q, g·k) = K(q, k) for every g,
 * restricted to the pairs the invariant relation makes visible. K is constant on the orbits of
 * G on pairs, so the indicators of those orbits are a basis (normalised, they are orthonormal);
 * the solver finds the orbits by union-find over the generators acting on both coordinates —
 * the same routine that solves the end of a permutation representation (src/symmetry/solve).
 */
export interface FiniteKernels {
  /** N = |X|. */
  readonly points: number;
  /** The number of orbits of visible pairs: dim of the kernel space. */
  readonly dimension: number;
  /** The orbit of pair (q, k) at q·N + k, or −1 where k is hidden from q. */
  readonly label: Int32Array;
  /** Pairs per orbit. */
  readonly sizes: Int32Array;
  readonly seconds: number;
}

/** The memory the derivation takes per pair: the union-find parents, the labels and their renumbering. */
const BYTES_PER_PAIR = 16;

/** What deriving the kernels of an N-point geometry costs, refused (SolveTooLargeError) above `maxBytes` before anything is allocated. */
export function finiteKernelBytes(points: number, what: string, maxBytes = 2 ** 30): number {
  const bytes = BYTES_PER_PAIR * points * points;
  if (!(bytes <= maxBytes))
    throw new SolveTooLargeError(
      `${what}: the kernels on ${formatCount(points)}² pairs need about ${formatBytes(bytes)}; the limit is ${formatBytes(maxBytes)}`,
      bytes,
    );
  return bytes;
}

/** The invariant kernels of a finite G-set (orbits of G on the visible pairs, by union-find). */
export function finiteKernels(a: FiniteAction, what: string, maxBytes?: number): FiniteKernels {
  const t0 = performance.now();
  const N = a.points;
  finiteKernelBytes(N, what, maxBytes);
  // G acts on X×X diagonally: (q, k) ↦ (g·q, g·k)
  const orbits = pairOrbits(
    N,
    N,
    a.generators.map((p) => ({ out: p, in: p })),
  );
  // keep the orbits inside the relation, numbered by first appearance; an invariant relation never splits one
  const inside = new Int8Array(orbits.count).fill(-1);
  const renumber = new Int32Array(orbits.count).fill(-1);
  const label = new Int32Array(N * N);
  let dimension = 0;
  for (let q = 0; q < N; q++)
    for (let k = 0; k < N; k++) {
      const o = orbits.label[q * N + k]!;
      const v = a.visible ? (a.visible(q, k) ? 1 : 0) : 1;
      if (inside[o] === -1) inside[o] = v;
      else if (inside[o] !== v) throw new RangeArgError(`${what}: the relation is not invariant (an orbit of pairs lies partly inside it)`);
      if (v && renumber[o] === -1) renumber[o] = dimension++;
      label[q * N + k] = v ? renumber[o]! : -1;
    }
  const sizes = new Int32Array(dimension);
  for (let x = 0; x < N * N; x++) if (label[x]! >= 0) sizes[label[x]!]!++;
  return { points: N, dimension, label, sizes, seconds: (performance.now() - t0) / 1000 };
}

/** The most distinct pair keys listed in one orbit's description. */
const MAX_KEYS = 8;

/**
 * A description of every basis element: the relative positions its pairs have (k − q on a
 * sequence, (Δrow, Δcolumn) on a grid, q = k or q ≠ k on a set), read off the orbit's members.
 */
export function describeKernels(a: FiniteAction, k: FiniteKernels): string[] {
  const N = k.points;
  const keys: Set<number>[] = Array.from({ length: k.dimension }, () => new Set<number>());
  for (let q = 0; q < N; q++)
    for (let j = 0; j < N; j++) {
      const o = k.label[q * N + j]!;
      if (o < 0) continue;
      const s = keys[o]!;
      if (s.size <= MAX_KEYS) s.add(a.pairKey(q, j));
    }
  return keys.map((s, o) => {
    const list = [...s].sort((x, y) => x - y);
    const shown = list.slice(0, MAX_KEYS).map(a.keyText);
    const text = list.length === 1 ? `= ${shown[0]!}` : `∈ {${shown.join(', ')}${list.length > MAX_KEYS ? ', …' : ''}}`;
    return `${a.keyOf ? `${a.keyOf} ${text}` : shown.join(', ')}: ${k.sizes[o]} pair${k.sizes[o] === 1 ? '' : 's'}`;
  });
}

/** Basis element b as a dense N×N matrix: 1/√|orbit| on the orbit's pairs (the orthonormal indicator, as the solver returns it). */
export function kernelMatrix(k: FiniteKernels, b: number): Float64Array {
  const m = new Float64Array(k.points * k.points);
  const v = 1 / Math.sqrt(k.sizes[b]!);
  for (let x = 0; x < m.length; x++) if (k.label[x] === b) m[x] = v;
  return m;
}
