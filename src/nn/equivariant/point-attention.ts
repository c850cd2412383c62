import { RangeArgError, ShapeError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import type { Para, ParamSpec } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Data } from '../../tensor/tensor.js';
import { deriveAttention } from '../../symmetry/geometry/derive.js';
import { geometryText } from '../../symmetry/geometry/geometry.js';
import type { Geometry } from '../../symmetry/geometry/geometry.js';
import { naturalIrrep } from '../../symmetry/geometry/points.js';
import { irrepName, toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { torchDefaultUniform } from '../initializers.js';
import { checkPoints } from './point-cloud.js';

/** The largest lmax the layer builds (its features are scalars and vectors); `derive --attention` lists the maps up to GEOMETRY_LIMITS.lmax. */
export const POINT_ATTENTION_LMAX = 1;

/** |v| and |r| are taken as √(|v|² + ε): smooth where v = 0 (a sum of values that cancel, two points on top of each other). */
const EPS = 1e-12;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** silu(z) = z·σ(z) in place, keeping z for the pullback. */
function silu(z: Data, out: Data): void {
  for (let i = 0; i < z.length; i++) out[i] = z[i]! * sigmoid(z[i]!);
}

/** dz = dy ⊙ silu′(z), silu′(z) = σ(z)(1 + z(1 − σ(z))), in place on dy. */
function siluBackward(z: Data, dy: Data): void {
  for (let i = 0; i < z.length; i++) {
    const s = sigmoid(z[i]!);
    dy[i]! *= s * (1 + z[i]! * (1 - s));
  }
}

/**
 * attention(S x0e + C x1o, heads, points(n[,lmax])): attention on a point cloud whose kernels
 * the solver derives for E(3) × S(n) (src/symmetry/geometry/points.ts). A sample is [n, 3 + S + 3C]:
 * each point's position, S scalars s and C vectors V (e3nn's layout); the output has the same
 * shape, positions passed on. For a query point i and a key point j ≠ i, r = x_j − x_i:
 *
 *   invariants   u_ij = [s_i, s_j, φ_k(|r|), ⟨V_i^c, r̂⟩, ⟨V_j^c, r̂⟩]   the invariant of the pair (|r|²) in
 *                the radial basis φ_k, and the contractions 1o ⊗ Y_1 → 0e of the vectors with the edge
 *   m_ij         = silu(W₂ silu(W₁u_ij + b₁) + b₂)                     coefficients as functions of the
 *                invariants (the radial functions of a steerable kernel, Thomas et al. 2018, made
 *                functions of every invariant of the pair: "scalars are universal", Villar et al. 2021)
 *   scores       ℓ_ij^h = (W_ℓ m_ij)_h, α_ij^h = softmax_j ℓ_ij^h
 *   values       scalar: (W_s m_ij)_k                                      0e ⊗ Y_0 → 0e
 *                vector: A_c(m_ij) r̂ + B_c(m_ij) V_j^c + C_c(m_ij) V_i^c  0e ⊗ Y_1 → 1o, 1o ⊗ Y_0 → 1o
 *   aggregate    a_i = Σ_j α_ij^{h(k)} value_ij[k]   (channel k in head k mod heads)
 *   update       [δs, g] = N₂ silu(N₁[s_i, a_i^s, |a_i^c|] + c₁) + c₂
 *                s_i′ = s_i + δs,  V_i^c′ = V_i^c + σ(g_c)·a_i^c
 *
 * The edge width is S. Every coefficient is an invariant and every vector a combination of r̂ and
 * the features' vectors, so the layer is invariant under translations, equivariant under
 * rotations and reflections (the vectors are 1o) and under permutations of the points.
 */
export function pointAttention(irreps: IrrepsLike, heads: number, geometry: Extract<Geometry, { kind: 'points' }>): Para {
  const where = `attention(${typeof irreps === 'string' ? irreps : String(irreps)},${heads},${geometryText(geometry)})`;
  const n = geometry.n;
  checkPoints(where, n);
  if (!(Number.isInteger(heads) && heads >= 1)) throw new RangeArgError(`${where}: heads must be a positive integer, got ${heads}`);
  if (geometry.lmax > POINT_ATTENTION_LMAX)
    throw new RangeArgError(
      `${where}: lmax = ${geometry.lmax}; the layer carries scalars and vectors, lmax ≤ ${POINT_ATTENTION_LMAX} (derive --attention lists the maps of higher degree)`,
    );
  if (typeof irreps === 'string' && /^\s*\d+\s*$/.test(irreps))
    throw new RangeArgError(
      `${where}: points(n) attention takes the features' irreps, scalars then vectors, S x0e + C x1o (e.g. attention(16x0e+4x1o,4,${geometryText(geometry)})); got the width ${irreps.trim()}`,
    );
  const ir = toIrreps(irreps, 'O(3)');
  const scalar = naturalIrrep(0),
    vector = naturalIrrep(1);
  let S = 0,
    C = 0;
  for (const t of ir.terms) {
    if (ir.group === 'O(3)' && t.ir.l === 0 && t.ir.p === scalar.p && C === 0) S += t.mul;
    else if (ir.group === 'O(3)' && t.ir.l === 1 && t.ir.p === vector.p) C += t.mul;
    else
      throw new RangeArgError(
        `${where}: the features must be scalars then vectors, S x0e + C x1o, with vectors only when lmax ≥ 1; got ${irrepName(t.ir)} in ${ir}`,
      );
  }
  if (C > 0 && geometry.lmax < 1) throw new RangeArgError(`${where}: vectors (1o) need lmax ≥ 1; got points(${n},${geometry.lmax})`);
  if (S < 1) throw new RangeArgError(`${where}: the features need scalars (0e): they are the scores' and the coefficients' inputs`);
  const derived = deriveAttention(geometry);
  if (derived.kind !== 'points') throw new RangeArgError(`${where}: no point kernels`);
  const centres = derived.points.radial.centres,
    gamma = derived.points.radial.gamma,
    K = centres.length;
  const H = S,
    U = 2 * S + K + 2 * C,
    O = heads + S + 3 * C,
    Wn = 2 * S + C,
    Y = S + C;
  const stride = 3 + S + 3 * C;
  // PyTorch's Linear initialisation, U(±1/√fan-in) for weights and biases (Glorot's is about twice as wide here)
  const params: ParamSpec[] = [
    { name: 'w1', shape: [H, U], init: torchDefaultUniform(U) },
    { name: 'b1', shape: [H], init: torchDefaultUniform(U) },
    { name: 'w2', shape: [H, H], init: torchDefaultUniform(H) },
    { name: 'b2', shape: [H], init: torchDefaultUniform(H) },
    { name: 'wo', shape: [O, H], init: torchDefaultUniform(H) },
    { name: 'bo', shape: [O], init: torchDefaultUniform(H) },
    { name: 'n1', shape: [H, Wn], init: torchDefaultUniform(Wn) },
    { name: 'c1', shape: [H], init: torchDefaultUniform(Wn) },
    { name: 'n2', shape: [Y, H], init: torchDefaultUniform(H) },
    { name: 'c2', shape: [Y], init: torchDefaultUniform(H) },
  ];
  const P = n - 1;
  const self: Para = primitive({
    kind: 'attention',
    args: [String(ir), heads, geometryText(geometry)],
    dom: [n, stride],
    cod: [n, stride],
    params,
    forward: (theta, x, ctx) => {
      if (x.rank !== 3 || x.shape[1] !== n || x.shape[2] !== stride)
        throw new ShapeError(`${where} expects [*,${n},${stride}] (each point's position, ${S} scalars and ${C} vectors) but got [${x.shape.join(',')}]`);
      const be = backend(),
        dt = x.dtype,
        X = x.data;
      const B = x.batch,
        N = B * n,
        E = N * P;
      const buf = (size: number): Data => ctx.alloc([size], dt).data;
      const [W1, B1, W2, B2, Wo, Bo, N1, C1, N2, C2] = theta.map((t) => t.data) as Data[];
      const src = new Int32Array(E);
      // the geometry of every edge e = v·P + q: query node v, key node src[e]
      const rh = buf(3 * E),
        dist = buf(E),
        u = buf(E * U);
      for (let v = 0; v < N; v++) {
        const b = Math.floor(v / n),
          i = v % n;
        for (let q = 0; q < P; q++) {
          const e = v * P + q,
            w = b * n + (q < i ? q : q + 1);
          src[e] = w;
          let r2 = 0;
          for (let a = 0; a < 3; a++) {
            const r = X[w * stride + a]! - X[v * stride + a]!;
            rh[3 * e + a] = r;
            r2 += r * r;
          }
          const d = Math.sqrt(r2 + EPS);
          dist[e] = d;
          for (let a = 0; a < 3; a++) rh[3 * e + a]! /= d;
          const o = e * U;
          for (let k = 0; k < S; k++) {
            u[o + k] = X[v * stride + 3 + k]!;
            u[o + S + k] = X[w * stride + 3 + k]!;
          }
          for (let k = 0; k < K; k++) u[o + 2 * S + k] = Math.exp(-gamma * (d - centres[k]!) ** 2);
          for (let c = 0; c < C; c++) {
            let pi = 0,
              pj = 0;
            for (let a = 0; a < 3; a++) {
              pi += X[v * stride + 3 + S + 3 * c + a]! * rh[3 * e + a]!;
              pj += X[w * stride + 3 + S + 3 * c + a]! * rh[3 * e + a]!;
            }
            u[o + 2 * S + K + c] = pi;
            u[o + 2 * S + K + C + c] = pj;
          }
        }
      }
      // the coefficient network on every edge
      const z1 = buf(E * H),
        a1 = buf(E * H),
        z2 = buf(E * H),
        m = buf(E * H),
        out = buf(E * O);
      be.gemm(false, true, E, H, U, u, W1!, z1, false);
      be.addRowVector(z1, B1!, E, H, z1, 'identity');
      silu(z1, a1);
      be.gemm(false, true, E, H, H, a1, W2!, z2, false);
      be.addRowVector(z2, B2!, E, H, z2, 'identity');
      silu(z2, m);
      be.gemm(false, true, E, O, H, m, Wo!, out, false);
      be.addRowVector(out, Bo!, E, O, out, 'identity');
      // scores: softmax over the keys of each query, per head (logits in out[e, 0…heads))
      const alpha = buf(E * heads);
      for (let v = 0; v < N; v++)
        for (let h = 0; h < heads; h++) {
          let mx = -Infinity;
          for (let q = 0; q < P; q++) mx = Math.max(mx, out[(v * P + q) * O + h]!);
          let z = 0;
          for (let q = 0; q < P; q++) z += alpha[(v * P + q) * heads + h] = Math.exp(out[(v * P + q) * O + h]! - mx);
          for (let q = 0; q < P; q++) alpha[(v * P + q) * heads + h]! /= z;
        }
      // aggregate the values
      const aggS = buf(N * S),
        aggV = buf(N * 3 * C);
      for (let v = 0; v < N; v++)
        for (let q = 0; q < P; q++) {
          const e = v * P + q,
            w = src[e]!,
            o = e * O;
          for (let k = 0; k < S; k++) aggS[v * S + k]! += alpha[e * heads + (k % heads)]! * out[o + heads + k]!;
          for (let c = 0; c < C; c++) {
            const al = alpha[e * heads + (c % heads)]!,
              A = out[o + heads + S + c]!,
              Bc = out[o + heads + S + C + c]!,
              Cc = out[o + heads + S + 2 * C + c]!;
            for (let a = 0; a < 3; a++)
              aggV[(v * C + c) * 3 + a]! += al * (A * rh[3 * e + a]! + Bc * X[w * stride + 3 + S + 3 * c + a]! + Cc * X[v * stride + 3 + S + 3 * c + a]!);
          }
        }
      // the update of each point
      const wIn = buf(N * Wn),
        nrm = buf(N * C);
      for (let v = 0; v < N; v++) {
        for (let k = 0; k < S; k++) {
          wIn[v * Wn + k] = X[v * stride + 3 + k]!;
          wIn[v * Wn + S + k] = aggS[v * S + k]!;
        }
        for (let c = 0; c < C; c++) {
          const o = (v * C + c) * 3;
          nrm[v * C + c] = wIn[v * Wn + 2 * S + c] = Math.sqrt(aggV[o]! ** 2 + aggV[o + 1]! ** 2 + aggV[o + 2]! ** 2 + EPS);
        }
      }
      const y1 = buf(N * H),
        n1 = buf(N * H),
        y2 = buf(N * Y);
      be.gemm(false, true, N, H, Wn, wIn, N1!, y1, false);
      be.addRowVector(y1, C1!, N, H, y1, 'identity');
      silu(y1, n1);
      be.gemm(false, true, N, Y, H, n1, N2!, y2, false);
      be.addRowVector(y2, C2!, N, Y, y2, 'identity');
      const y = ctx.alloc(x.shape, dt, true);
      const Yd = y.data;
      for (let v = 0; v < N; v++) {
        const o = v * stride;
        for (let a = 0; a < 3; a++) Yd[o + a] = X[o + a]!;
        for (let k = 0; k < S; k++) Yd[o + 3 + k] = X[o + 3 + k]! + y2[v * Y + k]!;
        for (let c = 0; c < C; c++) {
          const g = sigmoid(y2[v * Y + S + c]!);
          for (let a = 0; a < 3; a++) Yd[o + 3 + S + 3 * c + a] = X[o + 3 + S + 3 * c + a]! + g * aggV[(v * C + c) * 3 + a]!;
        }
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const D = dy.data;
          const dx = ctx.alloc(x.shape, dt);
          const dX = dx.data;
          const [dW1, dB1, dW2, dB2, dWo, dBo, dN1, dC1, dN2, dC2] = (dTheta ?? []).map((t) => t.data) as (Data | undefined)[];
          // the update: s′ = s + δs, V′ = V + σ(g)·a
          const dy2 = buf(N * Y),
            daggV = buf(N * 3 * C);
          for (let v = 0; v < N; v++) {
            const o = v * stride;
            for (let a = 0; a < 3; a++) dX[o + a] = D[o + a]!;
            for (let k = 0; k < S; k++) {
              dX[o + 3 + k] = D[o + 3 + k]!;
              dy2[v * Y + k] = D[o + 3 + k]!;
            }
            for (let c = 0; c < C; c++) {
              const g = sigmoid(y2[v * Y + S + c]!);
              let dg = 0;
              for (let a = 0; a < 3; a++) {
                const d = D[o + 3 + S + 3 * c + a]!;
                dX[o + 3 + S + 3 * c + a] = d;
                dg += d * aggV[(v * C + c) * 3 + a]!;
                daggV[(v * C + c) * 3 + a] = g * d;
              }
              dy2[v * Y + S + c] = dg * g * (1 - g);
            }
          }
          const dn1 = buf(N * H),
            dwIn = buf(N * Wn);
          if (dN2) be.gemm(true, false, Y, H, N, dy2, n1, dN2, true);
          if (dC2) be.sumRows(dy2, N, Y, dC2, true);
          be.gemm(false, false, N, H, Y, dy2, N2!, dn1, false);
          siluBackward(y1, dn1);
          if (dN1) be.gemm(true, false, H, Wn, N, dn1, wIn, dN1, true);
          if (dC1) be.sumRows(dn1, N, H, dC1, true);
          be.gemm(false, false, N, Wn, H, dn1, N1!, dwIn, false);
          const daggS = buf(N * S);
          for (let v = 0; v < N; v++) {
            for (let k = 0; k < S; k++) {
              dX[v * stride + 3 + k]! += dwIn[v * Wn + k]!;
              daggS[v * S + k] = dwIn[v * Wn + S + k]!;
            }
            for (let c = 0; c < C; c++) {
              const f = dwIn[v * Wn + 2 * S + c]! / nrm[v * C + c]!;
              for (let a = 0; a < 3; a++) daggV[(v * C + c) * 3 + a]! += f * aggV[(v * C + c) * 3 + a]!;
            }
          }
          // the aggregation and the scores
          const dout = buf(E * O),
            drh = buf(3 * E),
            dalpha = buf(E * heads);
          for (let v = 0; v < N; v++)
            for (let q = 0; q < P; q++) {
              const e = v * P + q,
                w = src[e]!,
                o = e * O;
              for (let k = 0; k < S; k++) {
                const h = k % heads,
                  d = daggS[v * S + k]!;
                dalpha[e * heads + h]! += d * out[o + heads + k]!;
                dout[o + heads + k] = alpha[e * heads + h]! * d;
              }
              for (let c = 0; c < C; c++) {
                const h = c % heads,
                  al = alpha[e * heads + h]!;
                const A = out[o + heads + S + c]!,
                  Bc = out[o + heads + S + C + c]!,
                  Cc = out[o + heads + S + 2 * C + c]!;
                let dA = 0,
                  dB = 0,
                  dC = 0,
                  dal = 0;
                for (let a = 0; a < 3; a++) {
                  const g = daggV[(v * C + c) * 3 + a]!,
                    r = rh[3 * e + a]!,
                    vj = X[w * stride + 3 + S + 3 * c + a]!,
                    vi = X[v * stride + 3 + S + 3 * c + a]!;
                  dal += g * (A * r + Bc * vj + Cc * vi);
                  dA += g * r;
                  dB += g * vj;
                  dC += g * vi;
                  drh[3 * e + a]! += al * A * g;
                  dX[w * stride + 3 + S + 3 * c + a]! += al * Bc * g;
                  dX[v * stride + 3 + S + 3 * c + a]! += al * Cc * g;
                }
                dalpha[e * heads + h]! += dal;
                dout[o + heads + S + c] = al * dA;
                dout[o + heads + S + C + c] = al * dB;
                dout[o + heads + S + 2 * C + c] = al * dC;
              }
            }
          for (let v = 0; v < N; v++)
            for (let h = 0; h < heads; h++) {
              let mean = 0;
              for (let q = 0; q < P; q++) mean += alpha[(v * P + q) * heads + h]! * dalpha[(v * P + q) * heads + h]!;
              for (let q = 0; q < P; q++) {
                const e = v * P + q;
                dout[e * O + h] = alpha[e * heads + h]! * (dalpha[e * heads + h]! - mean);
              }
            }
          // the coefficient network
          const dm = buf(E * H),
            da1 = buf(E * H),
            du = buf(E * U);
          if (dWo) be.gemm(true, false, O, H, E, dout, m, dWo, true);
          if (dBo) be.sumRows(dout, E, O, dBo, true);
          be.gemm(false, false, E, H, O, dout, Wo!, dm, false);
          siluBackward(z2, dm);
          if (dW2) be.gemm(true, false, H, H, E, dm, a1, dW2, true);
          if (dB2) be.sumRows(dm, E, H, dB2, true);
          be.gemm(false, false, E, H, H, dm, W2!, da1, false);
          siluBackward(z1, da1);
          if (dW1) be.gemm(true, false, H, U, E, da1, u, dW1, true);
          if (dB1) be.sumRows(da1, E, H, dB1, true);
          if (!needDx) return dx;
          be.gemm(false, false, E, U, H, da1, W1!, du, false);
          // the invariants, back to the features and the positions
          for (let v = 0; v < N; v++)
            for (let q = 0; q < P; q++) {
              const e = v * P + q,
                w = src[e]!,
                o = e * U,
                d = dist[e]!;
              for (let k = 0; k < S; k++) {
                dX[v * stride + 3 + k]! += du[o + k]!;
                dX[w * stride + 3 + k]! += du[o + S + k]!;
              }
              let dd = 0;
              for (let k = 0; k < K; k++) dd += du[o + 2 * S + k]! * u[o + 2 * S + k]! * -2 * gamma * (d - centres[k]!);
              for (let c = 0; c < C; c++) {
                const dpi = du[o + 2 * S + K + c]!,
                  dpj = du[o + 2 * S + K + C + c]!;
                for (let a = 0; a < 3; a++) {
                  dX[v * stride + 3 + S + 3 * c + a]! += dpi * rh[3 * e + a]!;
                  dX[w * stride + 3 + S + 3 * c + a]! += dpj * rh[3 * e + a]!;
                  drh[3 * e + a]! += dpi * X[v * stride + 3 + S + 3 * c + a]! + dpj * X[w * stride + 3 + S + 3 * c + a]!;
                }
              }
              // r̂ = r/|r|, |r| = √(r² + ε): dr = (dr̂ − (dr̂·r̂)r̂)/|r| + d|r|·r̂
              let dot = 0;
              for (let a = 0; a < 3; a++) dot += drh[3 * e + a]! * rh[3 * e + a]!;
              for (let a = 0; a < 3; a++) {
                const dr = (drh[3 * e + a]! - dot * rh[3 * e + a]!) / d + dd * rh[3 * e + a]!;
                dX[w * stride + a]! += dr;
                dX[v * stride + a]! -= dr;
              }
            }
          return dx;
        },
      };
    },
  });
  return self;
}
