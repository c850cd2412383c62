import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para, ParamSpec } from '../../para/para.js';
import type { Data } from '../../tensor/tensor.js';
import { Irreps, toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { shDim } from '../../symmetry/irreps/spherical-harmonics.js';
import { GatePlan } from './irreps-gate.js';
import { checkPoints, cloudGeometry, cloudGeometryBackward, shIrreps } from './point-cloud.js';
import { addScalarBias, ctxScratch, scalarBiasGrad, tpParams } from './tensor-product.js';
import { ONE_SCALAR, TensorProductPlan } from './tp-kernel.js';
import type { Scratch, TpSaved } from './tp-kernel.js';

/** How messages into a node are combined: summed (SEGNN), or weighted by a softmax over invariant logits (attention). */
export type Aggregation = 'sum' | 'attention';

/** Concatenated irreps (a direct sum kept in the given order, not simplified). */
const concat = (...xs: Irreps[]): Irreps =>
  new Irreps(
    xs[0]!.group,
    xs.flatMap((x) => x.terms),
  );

/** A tensor product followed by a bias on the even scalars: the steerable linear map of SEGNN (Brandstetter et al. 2022, eq. 9). */
class SteerableLinear {
  readonly plan: TensorProductPlan;
  constructor(
    readonly in1: Irreps,
    readonly attr: Irreps,
    readonly out: Irreps,
  ) {
    this.plan = new TensorProductPlan(in1, attr, out);
  }
  forward(rows: number, x: Data, a: Data, W: Data, bias: Data | undefined, y: Data, mem: Scratch): TpSaved {
    const s = this.plan.forward(rows, x, a, W, y, false, mem);
    addScalarBias(this.out, rows, y, bias);
    return s;
  }
  backward(s: TpSaved, W: Data, dy: Data, dW: Data | null, dbias: Data | undefined, dx: Data | null, da: Data | null, mem: Scratch): void {
    this.plan.backward(s, W, dy, dW, dx, da, mem);
    if (dW) scalarBiasGrad(this.out, s.rows, dy, dbias);
  }
}

/**
 * e3_conv(n, in, hidden, out, lmax[, aggregation]): one layer of steerable E(3)-equivariant
 * message passing on a point cloud (SEGNN, Brandstetter et al. ICLR 2022, eqs. 7–8), on the
 * complete graph of n points. A sample is [n, 3 + in.dim]: each point's position and its
 * features in `in`; the output is [n, 3 + out.dim], positions passed on unchanged, so layers
 * compose. With a_ij = Y_{0…lmax}(x_j − x_i) (edge attributes) and b_i the mean of a_ij over j
 * (node attributes):
 *
 *   m_ij = Gate(TP₂(Gate(TP₁([h_i | h_j | ‖x_j − x_i‖], a_ij)), a_ij))      messages
 *   m_i  = Σ_j m_ij   (or Σ_j α_ij m_ij, α_i· = softmax_j(w·scalars(m_ij)))  aggregation
 *   h_i′ = TP₄(Gate(TP₃([h_i | m_i], b_i)), b_i)  (+ h_i when in = out)        update
 *
 * TP are tensor products of irreps with learned weights per path (TensorProductPlan), Gate the
 * gated nonlinearity with hidden's scalars as the swish channels. Positions enter only through
 * x_j − x_i, so the layer is invariant under translations of the positions, equivariant under
 * O(3) (rotations and reflections: the irreps carry parities), and under permutations of the
 * points.
 */
export function e3Conv(n: number, inIrreps: IrrepsLike, hiddenIrreps: IrrepsLike, outIrreps: IrrepsLike, lmax: number, aggregation: Aggregation = 'sum'): Para {
  checkPoints('e3_conv', n);
  if (!(Number.isInteger(lmax) && lmax >= 0 && lmax <= 4)) throw new RangeArgError(`e3_conv: lmax must be an integer in 0 … 4, got ${lmax}`);
  if (aggregation !== 'sum' && aggregation !== 'attention') throw new RangeArgError(`e3_conv: aggregation must be 'sum' or 'attention', got '${aggregation}'`);
  const hIn = toIrreps(inIrreps),
    G = hIn.group,
    hid = toIrreps(hiddenIrreps, G),
    hOut = toIrreps(outIrreps, G);
  if (G === 'SO(2)') throw new RangeArgError('e3_conv: SO(3) or O(3) irreps expected');
  const scalars = new Irreps(
    G,
    hid.terms.filter((t) => t.ir.l === 0),
  );
  const gatedI = new Irreps(
    G,
    hid.terms.filter((t) => t.ir.l > 0),
  );
  if (!scalars.dim) throw new RangeArgError(`e3_conv: hidden irreps ${hid} need scalar channels (the gate's swish channels)`);
  const gate = new GatePlan(scalars, gatedI);
  const hidden = concat(scalars, gatedI); // the gate's output order: scalars first
  const gIn = gate.inputIrreps;
  const attr = shIrreps(G, lmax);
  const msgIn = concat(hIn, hIn, ONE_SCALAR(G)),
    updIn = concat(hIn, hidden);
  const tp1 = new SteerableLinear(msgIn, attr, gIn),
    tp2 = new SteerableLinear(hidden, attr, gIn);
  const tp3 = new SteerableLinear(updIn, attr, gIn),
    tp4 = new SteerableLinear(hidden, attr, hOut);
  const residual = String(hIn) === String(hOut);
  const tps = [tp1, tp2, tp3, tp4];
  const nsc = scalars.dim;
  const params: ParamSpec[] = tps.flatMap((t, k) => tpParams(t.plan, `tp${k + 1}.`));
  if (aggregation === 'attention')
    params.push({
      name: 'attention',
      shape: [nsc],
      init: (rng, out) => {
        for (let i = 0; i < out.length; i++) out[i] = rng.normal() / Math.sqrt(nsc);
      },
    });
  // where the weight and the bias (if any) of each tensor product sit in θ
  const slots: { w: number; b?: number }[] = [];
  let k = 0;
  tps.forEach((_, i) => {
    const w = k++;
    slots.push(params[k]?.name === `tp${i + 1}.bias` ? { w, b: k++ } : { w });
  });
  const attIndex = aggregation === 'attention' ? k : -1;
  const dIn = hIn.dim,
    dH = hidden.dim,
    dG = gIn.dim,
    dOut = hOut.dim,
    A = shDim(lmax),
    sIn = 3 + dIn,
    sOut = 3 + dOut;
  const self: Para = primitive({
    kind: 'e3_conv',
    args: [n, String(hIn), String(hid), String(hOut), lmax, ...(aggregation === 'attention' ? ['attention'] : [])],
    dom: [n, sIn],
    cod: [n, sOut],
    params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const mem = ctxScratch(ctx),
        f64 = x.dtype === 'float64';
      const B = x.batch,
        N = B * n,
        X = x.data;
      const W = (i: number): Data => theta[slots[i]!.w]!.data;
      const Bi = (i: number): Data | undefined => (slots[i]!.b === undefined ? undefined : theta[slots[i]!.b!]!.data);
      const geo = cloudGeometry(X, B, n, sIn, lmax, mem);
      const E = geo.edges;
      // node features and node attributes b_i = mean_j a_ij
      const H = mem(N * dIn, f64);
      for (let v = 0; v < N; v++) H.set(X.subarray(v * sIn + 3, (v + 1) * sIn), v * dIn);
      const nodeAttr = mem(N * A, f64);
      for (let e = 0; e < E; e++) for (let c = 0; c < A; c++) nodeAttr[geo.target[e]! * A + c]! += geo.sh[e * A + c]! / (n - 1);
      // messages
      const m0 = mem(E * msgIn.dim, f64);
      for (let e = 0; e < E; e++) {
        const o = e * msgIn.dim;
        m0.set(H.subarray(geo.target[e]! * dIn, (geo.target[e]! + 1) * dIn), o);
        m0.set(H.subarray(geo.source[e]! * dIn, (geo.source[e]! + 1) * dIn), o + dIn);
        m0[o + 2 * dIn] = geo.dist[e]!;
      }
      const t1 = mem(E * dG, f64),
        g1 = mem(E * dH, f64),
        t2 = mem(E * dG, f64),
        msg = mem(E * dH, f64);
      const s1 = tp1.forward(E, m0, geo.sh, W(0), Bi(0), t1, mem);
      gate.forward(E, t1, g1);
      const s2 = tp2.forward(E, g1, geo.sh, W(1), Bi(1), t2, mem);
      gate.forward(E, t2, msg);
      // aggregation
      const agg = mem(N * dH, f64);
      let alpha: Data | undefined;
      if (aggregation === 'sum') {
        for (let e = 0; e < E; e++) {
          const t = geo.target[e]! * dH,
            o = e * dH;
          for (let c = 0; c < dH; c++) agg[t + c]! += msg[o + c]!;
        }
      } else {
        const w = theta[attIndex]!.data;
        alpha = mem(E, f64);
        const per = n - 1;
        for (let v = 0; v < N; v++) {
          let mx = -Infinity;
          for (let q = 0; q < per; q++) {
            const e = v * per + q;
            let l = 0;
            for (let c = 0; c < nsc; c++) l += w[c]! * msg[e * dH + c]!;
            alpha[e] = l;
            mx = Math.max(mx, l);
          }
          let z = 0;
          for (let q = 0; q < per; q++) z += alpha[v * per + q] = Math.exp(alpha[v * per + q]! - mx);
          for (let q = 0; q < per; q++) {
            const e = v * per + q;
            alpha[e]! /= z;
            for (let c = 0; c < dH; c++) agg[v * dH + c]! += alpha[e]! * msg[e * dH + c]!;
          }
        }
      }
      // update
      const u0 = mem(N * updIn.dim, f64);
      for (let v = 0; v < N; v++) {
        u0.set(H.subarray(v * dIn, (v + 1) * dIn), v * updIn.dim);
        u0.set(agg.subarray(v * dH, (v + 1) * dH), v * updIn.dim + dIn);
      }
      const t3 = mem(N * dG, f64),
        g3 = mem(N * dH, f64),
        o4 = mem(N * dOut, f64);
      const s3 = tp3.forward(N, u0, nodeAttr, W(2), Bi(2), t3, mem);
      gate.forward(N, t3, g3);
      const s4 = tp4.forward(N, g3, nodeAttr, W(3), Bi(3), o4, mem);
      const y = ctx.alloc([B, n, sOut], x.dtype, true);
      for (let v = 0; v < N; v++) {
        for (let c = 0; c < 3; c++) y.data[v * sOut + c] = X[v * sIn + c]!;
        for (let c = 0; c < dOut; c++) y.data[v * sOut + 3 + c] = o4[v * dOut + c]! + (residual ? H[v * dIn + c]! : 0);
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const D = dy.data;
          const dWt = (i: number): Data | null => (dTheta ? dTheta[slots[i]!.w]!.data : null);
          const dBt = (i: number): Data | undefined => (dTheta && slots[i]!.b !== undefined ? dTheta[slots[i]!.b!]!.data : undefined);
          const dO = mem(N * dOut, f64),
            dH_ = mem(N * dIn, f64);
          for (let v = 0; v < N; v++)
            for (let c = 0; c < dOut; c++) {
              const g = D[v * sOut + 3 + c]!;
              dO[v * dOut + c] = g;
              if (residual) dH_[v * dIn + c]! += g;
            }
          const dNodeAttr = mem(N * A, f64);
          const dG3 = mem(N * dH, f64),
            dT3 = mem(N * dG, f64),
            dU0 = mem(N * updIn.dim, f64);
          tp4.backward(s4, W(3), dO, dWt(3), dBt(3), dG3, dNodeAttr, mem);
          gate.backward(N, t3, dG3, dT3);
          tp3.backward(s3, W(2), dT3, dWt(2), dBt(2), dU0, dNodeAttr, mem);
          const dAgg = mem(N * dH, f64);
          for (let v = 0; v < N; v++) {
            for (let c = 0; c < dIn; c++) dH_[v * dIn + c]! += dU0[v * updIn.dim + c]!;
            for (let c = 0; c < dH; c++) dAgg[v * dH + c] = dU0[v * updIn.dim + dIn + c]!;
          }
          const dMsg = mem(E * dH, f64);
          if (aggregation === 'sum') {
            for (let e = 0; e < E; e++) dMsg.set(dAgg.subarray(geo.target[e]! * dH, (geo.target[e]! + 1) * dH), e * dH);
          } else {
            const w = theta[attIndex]!.data,
              dw = dTheta ? dTheta[attIndex]!.data : null,
              per = n - 1;
            for (let v = 0; v < N; v++) {
              // dℓ_e = α_e(⟨dm_v, m_e⟩ − Σ_k α_k⟨dm_v, m_k⟩); dm_e = α_e dm_v + dℓ_e·w on the scalars
              let mean = 0;
              const dots = new Float64Array(per);
              for (let q = 0; q < per; q++) {
                const e = v * per + q;
                let s = 0;
                for (let c = 0; c < dH; c++) s += dAgg[v * dH + c]! * msg[e * dH + c]!;
                dots[q] = s;
                mean += alpha![e]! * s;
              }
              for (let q = 0; q < per; q++) {
                const e = v * per + q,
                  a = alpha![e]!,
                  dl = a * (dots[q]! - mean);
                for (let c = 0; c < dH; c++) dMsg[e * dH + c] = a * dAgg[v * dH + c]!;
                for (let c = 0; c < nsc; c++) {
                  dMsg[e * dH + c]! += dl * w[c]!;
                  if (dw) dw[c]! += dl * msg[e * dH + c]!;
                }
              }
            }
          }
          const dSh = mem(E * A, f64);
          const dT2 = mem(E * dG, f64),
            dG1 = mem(E * dH, f64),
            dT1 = mem(E * dG, f64),
            dM0 = mem(E * msgIn.dim, f64);
          gate.backward(E, t2, dMsg, dT2);
          tp2.backward(s2, W(1), dT2, dWt(1), dBt(1), dG1, dSh, mem);
          gate.backward(E, t1, dG1, dT1);
          tp1.backward(s1, W(0), dT1, dWt(0), dBt(0), dM0, dSh, mem);
          const dx = ctx.alloc(x.shape, x.dtype);
          if (!needDx) return dx;
          const dDist = mem(E, f64);
          for (let e = 0; e < E; e++) {
            const o = e * msgIn.dim,
              ti = geo.target[e]! * dIn,
              sj = geo.source[e]! * dIn;
            for (let c = 0; c < dIn; c++) {
              dH_[ti + c]! += dM0[o + c]!;
              dH_[sj + c]! += dM0[o + dIn + c]!;
            }
            dDist[e] = dM0[o + 2 * dIn]!;
            for (let c = 0; c < A; c++) dSh[e * A + c]! += dNodeAttr[geo.target[e]! * A + c]! / (n - 1);
          }
          for (let v = 0; v < N; v++) {
            for (let c = 0; c < 3; c++) dx.data[v * sIn + c] = D[v * sOut + c]!;
            for (let c = 0; c < dIn; c++) dx.data[v * sIn + 3 + c] = dH_[v * dIn + c]!;
          }
          cloudGeometryBackward(geo, A, dSh, dDist, dx.data, sIn);
          return dx;
        },
      };
    },
  });
  return self;
}
