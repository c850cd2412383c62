import { RangeArgError } from '../../errors.js';
import type { Data } from '../../tensor/tensor.js';
import { Irreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepGroup } from '../../symmetry/irreps/irrep.js';
import { shDim, sphericalHarmonics } from '../../symmetry/irreps/spherical-harmonics.js';
import type { Scratch } from './tp-kernel.js';

/** The largest point cloud the point-cloud layers are built for (all n(n−1) ordered pairs are edges). */
const MAX_POINTS_CLOUD = 256;

export function checkPoints(what: string, n: number): void {
  if (!(Number.isInteger(n) && n >= 2 && n <= MAX_POINTS_CLOUD))
    throw new RangeArgError(`${what}: a point cloud needs an integer number of points in 2 … ${MAX_POINTS_CLOUD}, got ${n}`);
}

/** The spherical harmonics 0 … lmax as irreps: 1x0e+1x1o+1x2e… for O(3) (parity (−1)^ℓ), 1x0+1x1+… for SO(3). */
export function shIrreps(group: IrrepGroup, lmax: number, mul = 1): Irreps {
  return new Irreps(
    group,
    Array.from({ length: lmax + 1 }, (_, l) => ({ mul, ir: { l, p: group === 'O(3)' ? (l % 2 ? -1 : 1) : 0 } as const })),
  );
}

/**
 * The geometry of a batch of point clouds on the complete graph: the edges e = (b, i, j),
 * i ≠ j, in the order b, then i, then j ≠ i, carry the message from j to i along
 * r_e = x_j − x_i. Edge e's target is node b·n + i, its source b·n + j.
 */
export interface CloudGeometry {
  readonly batch: number;
  readonly n: number;
  readonly edges: number;
  readonly target: Int32Array;
  readonly source: Int32Array;
  /** r_e (edges × 3). */
  readonly rel: Data;
  /** |r_e|. */
  readonly dist: Data;
  /** Y_0 … Y_lmax(r_e/|r_e|) (edges × (lmax+1)²), e3nn's 'component' normalisation (Y_0 = 1). */
  readonly sh: Data;
  /** ∂Y/∂r_e (edges × (lmax+1)² × 3). */
  readonly shGrad: Data;
}

/** Reads positions from the first 3 of every `stride` values per node and builds the edges, distances and harmonics. */
export function cloudGeometry(X: Data, batch: number, n: number, stride: number, lmax: number, mem: Scratch): CloudGeometry {
  const E = batch * n * (n - 1),
    f64 = X instanceof Float64Array;
  const target = new Int32Array(E),
    source = new Int32Array(E);
  const rel = mem(E * 3, true),
    dist = mem(E, f64);
  let e = 0;
  for (let b = 0; b < batch; b++)
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        if (i === j) continue;
        const ti = b * n + i,
          sj = b * n + j;
        target[e] = ti;
        source[e] = sj;
        let q = 0;
        for (let c = 0; c < 3; c++) {
          const v = X[sj * stride + c]! - X[ti * stride + c]!;
          rel[3 * e + c] = v;
          q += v * v;
        }
        dist[e] = Math.sqrt(q);
        e++;
      }
  const D = shDim(lmax);
  const sh = mem(E * D, f64),
    shGrad = mem(E * D * 3, f64);
  sphericalHarmonics(lmax, rel, E, { normalization: 'component', out: sh, grad: shGrad });
  return { batch, n, edges: E, target, source, rel, dist, sh, shGrad };
}

/**
 * The pullback of the geometry into the positions: given dY (edges × (lmax+1)²) and d|r|
 * (edges, or null), adds ∂/∂x to dX (the first 3 of every `stride` values per node):
 * dr_e = (∂Y/∂r)ᵀ dY_e + d|r|_e·r_e/|r_e|, dx_source += dr_e, dx_target −= dr_e.
 */
export function cloudGeometryBackward(g: CloudGeometry, D: number, dSh: Data | null, dDist: Data | null, dX: Data, stride: number): void {
  for (let e = 0; e < g.edges; e++) {
    let r0 = 0,
      r1 = 0,
      r2 = 0;
    if (dSh)
      for (let k = 0; k < D; k++) {
        const d = dSh[e * D + k]!;
        if (d === 0) continue;
        const o = (e * D + k) * 3;
        r0 += d * g.shGrad[o]!;
        r1 += d * g.shGrad[o + 1]!;
        r2 += d * g.shGrad[o + 2]!;
      }
    if (dDist && g.dist[e]! > 0) {
      const c = dDist[e]! / g.dist[e]!;
      r0 += c * g.rel[3 * e]!;
      r1 += c * g.rel[3 * e + 1]!;
      r2 += c * g.rel[3 * e + 2]!;
    }
    const s = g.source[e]! * stride,
      t = g.target[e]! * stride;
    dX[s]! += r0;
    dX[s + 1]! += r1;
    dX[s + 2]! += r2;
    dX[t]! -= r0;
    dX[t + 1]! -= r1;
    dX[t + 2]! -= r2;
  }
}
