import { DataError, RangeArgError } from '../errors.js';
import { Rng } from '../random/rng.js';
import type { Tensor } from '../tensor/tensor.js';

/**
 * k-means as a colimit construction (seed 000, §Colimits: "each cluster centroid acts as
 * a representative (a colimit) for its assigned points; the assignment is the universal
 * mapping"). Lloyd's iteration alternates
 *   assignment  x ↦ argmin_c ‖x − μ_c‖²  (the universal morphism from each point to a representative), and
 *   update      μ_c = (1/|C_c|) Σ_{x∈C_c} x  (the mean pool of the cluster: its colimit in the averaging sense),
 * until the centres move less than a tolerance. Seeding is greedy k-means++ (Arthur &
 * Vassilvitskii 2007, with 2 + ⌊ln k⌋ candidates per centre as scikit-learn does); several
 * restarts keep the lowest inertia Σ_x min_c ‖x − μ_c‖². All arithmetic is float64.
 */
export interface KMeansOptions {
  k: number;
  /** Independent seedings; the lowest inertia wins. Default 10. */
  restarts?: number;
  /** Lloyd iterations per restart at most. Default 300. */
  maxIter?: number;
  /** Convergence when Σ_c ‖Δμ_c‖² ≤ tol · (mean per-feature variance), scikit-learn's rule. Default 1e-4. */
  tol?: number;
  seed?: number | Rng;
  /** Told after every Lloyd iteration: the restart (1-based), the restarts in all, the iteration (for a progress line). */
  onIteration?: (restart: number, restarts: number, iteration: number) => void;
}

export interface KMeansResult {
  /** [k][d] centres. */
  readonly centroids: number[][];
  /** Cluster of each point. */
  readonly assignments: Int32Array;
  /** Points per cluster. */
  readonly sizes: number[];
  /** Σ_x min_c ‖x − μ_c‖² for the returned centres. */
  readonly inertia: number;
  /** Lloyd iterations of the winning restart. */
  readonly iterations: number;
  readonly converged: boolean;
  /** Inertia of every restart, in order. */
  readonly restartInertias: number[];
}

/** Points as a float64 row-major block, checked: non-empty, rank 2, finite. */
function pointsOf(x: Tensor): { p: Float64Array; N: number; d: number } {
  if (x.rank !== 2) throw new DataError(`k-means expects points [N,d] but got rank ${x.rank}`);
  const N = x.shape[0]!,
    d = x.shape[1]!;
  if (N === 0 || d === 0) throw new DataError(`k-means: empty data (${N} points with ${d} features)`);
  const p = Float64Array.from(x.data);
  for (let i = 0; i < p.length; i++) {
    if (!Number.isFinite(p[i]!)) throw new DataError(`k-means: non-finite value ${p[i]} at row ${Math.floor(i / d) + 1}, column ${(i % d) + 1}`);
  }
  return { p, N, d };
}

function sqDist(p: Float64Array, i: number, c: Float64Array, j: number, d: number): number {
  let s = 0;
  for (let t = 0; t < d; t++) {
    const v = p[i * d + t]! - c[j * d + t]!;
    s += v * v;
  }
  return s;
}

/**
 * The universal morphism: each point to its nearest centre (ties to the lower index).
 * Writes assignments and squared distances; returns the inertia.
 */
export function assignPoints(p: Float64Array, N: number, d: number, centres: Float64Array, k: number, labels: Int32Array, dist: Float64Array): number {
  let inertia = 0;
  for (let i = 0; i < N; i++) {
    let best = 0,
      bestD = Infinity;
    for (let c = 0; c < k; c++) {
      const v = sqDist(p, i, centres, c, d);
      if (v < bestD) {
        bestD = v;
        best = c;
      }
    }
    labels[i] = best;
    dist[i] = bestD;
    inertia += bestD;
  }
  return inertia;
}

/**
 * The colimit step: each centre becomes the mean of its cluster. An empty cluster is
 * repaired by moving its centre onto the point farthest from its own centre (each such
 * point used once). Returns the cluster sizes.
 */
export function updateCentres(p: Float64Array, N: number, d: number, labels: Int32Array, dist: Float64Array, k: number, centres: Float64Array): number[] {
  const sizes = new Array<number>(k).fill(0);
  centres.fill(0);
  for (let i = 0; i < N; i++) {
    const c = labels[i]!;
    sizes[c]!++;
    for (let t = 0; t < d; t++) centres[c * d + t]! += p[i * d + t]!;
  }
  const used = new Set<number>();
  for (let c = 0; c < k; c++) {
    if (sizes[c]! > 0) {
      for (let t = 0; t < d; t++) centres[c * d + t]! /= sizes[c]!;
      continue;
    }
    let far = -1;
    for (let i = 0; i < N; i++) if (!used.has(i) && (far < 0 || dist[i]! > dist[far]!)) far = i;
    used.add(far);
    for (let t = 0; t < d; t++) centres[c * d + t] = p[far * d + t]!;
  }
  return sizes;
}

/** Greedy k-means++ seeding: the first centre uniformly, each next one the best of 2+⌊ln k⌋ draws ∝ D². */
export function kMeansPlusPlus(p: Float64Array, N: number, d: number, k: number, rng: Rng): Float64Array {
  const centres = new Float64Array(k * d);
  const first = rng.int(N);
  centres.set(p.subarray(first * d, (first + 1) * d), 0);
  const closest = new Float64Array(N);
  for (let i = 0; i < N; i++) closest[i] = sqDist(p, i, centres, 0, d);
  const trials = 2 + Math.floor(Math.log(k));
  const cand = new Float64Array(d);
  for (let c = 1; c < k; c++) {
    let bestPot = Infinity,
      bestIdx = 0;
    for (let t = 0; t < trials; t++) {
      const idx = rng.categorical(closest);
      cand.set(p.subarray(idx * d, (idx + 1) * d));
      let pot = 0;
      for (let i = 0; i < N; i++) pot += Math.min(closest[i]!, sqDist(p, i, cand, 0, d));
      if (pot < bestPot) {
        bestPot = pot;
        bestIdx = idx;
      }
    }
    centres.set(p.subarray(bestIdx * d, (bestIdx + 1) * d), c * d);
    for (let i = 0; i < N; i++) closest[i] = Math.min(closest[i]!, sqDist(p, i, centres, c, d));
  }
  return centres;
}

/** Lloyd's iteration from given centres (updated in place). */
export function lloyd(
  p: Float64Array,
  N: number,
  d: number,
  k: number,
  centres: Float64Array,
  maxIter: number,
  tolAbs: number,
  onIteration?: (iteration: number) => void,
) {
  const labels = new Int32Array(N),
    dist = new Float64Array(N);
  const prev = new Float64Array(centres.length);
  let iterations = 0,
    converged = false;
  for (; iterations < maxIter;) {
    assignPoints(p, N, d, centres, k, labels, dist);
    prev.set(centres);
    updateCentres(p, N, d, labels, dist, k, centres);
    iterations++;
    onIteration?.(iterations);
    let shift = 0;
    for (let i = 0; i < centres.length; i++) shift += (centres[i]! - prev[i]!) ** 2;
    if (shift <= tolAbs) {
      converged = true;
      break;
    }
  }
  // a final assignment so labels, sizes and inertia belong to the returned centres
  const inertia = assignPoints(p, N, d, centres, k, labels, dist);
  const sizes = new Array<number>(k).fill(0);
  for (let i = 0; i < N; i++) sizes[labels[i]!]!++;
  return { labels, inertia, iterations, converged, sizes };
}

/** k-means with k-means++ seeding and restarts; see the module comment. */
export function kMeans(x: Tensor, opts: KMeansOptions): KMeansResult {
  const { p, N, d } = pointsOf(x);
  const k = opts.k;
  if (!(Number.isInteger(k) && k >= 1)) throw new RangeArgError(`k-means: k must be a positive integer, got ${k}`);
  if (k > N) throw new RangeArgError(`k-means: k = ${k} is larger than the number of points (${N})`);
  const restarts = opts.restarts ?? 10,
    maxIter = opts.maxIter ?? 300,
    tol = opts.tol ?? 1e-4;
  if (!(Number.isInteger(restarts) && restarts >= 1)) throw new RangeArgError(`k-means: restarts must be a positive integer, got ${restarts}`);
  if (!(Number.isInteger(maxIter) && maxIter >= 1)) throw new RangeArgError(`k-means: maxIter must be a positive integer, got ${maxIter}`);
  if (!(tol >= 0)) throw new RangeArgError(`k-means: tol must be ≥ 0, got ${tol}`);
  let meanVar = 0;
  for (let t = 0; t < d; t++) {
    let m = 0,
      v = 0;
    for (let i = 0; i < N; i++) m += p[i * d + t]! / N;
    for (let i = 0; i < N; i++) v += (p[i * d + t]! - m) ** 2 / N;
    meanVar += v / d;
  }
  const rng = typeof opts.seed === 'object' ? opts.seed : new Rng(opts.seed ?? 0);
  let best: (ReturnType<typeof lloyd> & { centres: Float64Array }) | undefined;
  const restartInertias: number[] = [];
  for (let r = 0; r < restarts; r++) {
    const centres = kMeansPlusPlus(p, N, d, k, rng.split());
    const run = lloyd(p, N, d, k, centres, maxIter, tol * meanVar, opts.onIteration && ((i) => opts.onIteration!(r + 1, restarts, i)));
    restartInertias.push(run.inertia);
    if (!best || run.inertia < best.inertia) best = { ...run, centres };
  }
  const b = best!;
  return {
    centroids: Array.from({ length: k }, (_, c) => Array.from(b.centres.subarray(c * d, (c + 1) * d))),
    assignments: b.labels,
    sizes: b.sizes,
    inertia: b.inertia,
    iterations: b.iterations,
    converged: b.converged,
    restartInertias,
  };
}
