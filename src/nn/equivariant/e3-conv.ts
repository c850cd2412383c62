import { RangeArgError } from '../../errors.js';
import { par, seq } from '../../para/composite.js';
import { defined } from '../../para/definition.js';
import type { Para } from '../../para/para.js';
import { add, copy, discard, id } from '../../para/structure.js';
import { Irreps, toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { shDim } from '../../symmetry/irreps/spherical-harmonics.js';
import { mapSet } from '../colimit/map.js';
import { transpose } from '../transpose.js';
import { aggregate, cloudEdges, nodeAttributes } from './cloud-graph.js';
import type { Aggregation } from './cloud-graph.js';
import { GatePlan, irrepsGate } from './irreps-gate.js';
import { checkPoints, shIrreps } from './point-cloud.js';
import { steerable, tensorProductOf } from './tensor-product.js';
import { ONE_SCALAR, TensorProductPlan } from './tp-kernel.js';

export type { Aggregation } from './cloud-graph.js';

/** Concatenated irreps (a direct sum kept in the given order, not simplified). */
const concat = (...xs: Irreps[]): Irreps =>
  new Irreps(
    xs[0]!.group,
    xs.flatMap((x) => x.terms),
  );

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
 * TP are tensor products of irreps with learned weights per path and a bias on the even scalars
 * (tensor_product: SEGNN's steerable linear map, eq. 9), Gate the gated nonlinearity with
 * hidden's scalars as the swish channels. Positions enter only through x_j − x_i, so the layer
 * is invariant under translations of the positions, equivariant under O(3) (rotations and
 * reflections: the irreps carry parities), and under permutations of the points.
 *
 * It is defined as a composite of lenses, so its pullback is the reverse composite of theirs:
 *
 *   copy >> (transpose @ (messages >> transpose)) >> transpose   [x_i | h_i] ↦ [x_i | h_i | m_i]
 *        >> node_attributes >> map(update, n)                    ↦ [x_i | h_i′]
 *   messages = cloud_edges >> map(message, n(n−1)) >> aggregate
 *
 *   message  = steerable(TP₁) >> (Gate @ id) >> steerable(TP₂) >> (Gate @ discard)
 *   update   = (id @ copy @ id) >> (id @ steerable(TP₃)) >> (id @ Gate @ id) >> (id @ TP₄) >> (id @ add)
 *
 * run on each edge's and each point's row; steerable(TP) = (id @ copy) >> (TP @ id) is the
 * tensor product beside the attributes, which it passes on for the next one. Its parameters
 * keep their names: tpK.weight, tpK.bias and, with attention, `attention` (after tp2's, where
 * the composite reads it).
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
  const gate = irrepsGate(scalars, gatedI);
  const hidden = concat(scalars, gatedI); // the gate's output order: scalars first
  const gIn = new GatePlan(scalars, gatedI).inputIrreps; // what the gate reads: scalars, a gate per gated copy, the gated
  const attr = shIrreps(G, lmax);
  const msgIn = concat(hIn, hIn, ONE_SCALAR(G)),
    updIn = concat(hIn, hidden);
  // TP₁…TP₃ pass the attributes on, for the next tensor product; TP₄ is the last to read them
  const tp1 = steerable(new TensorProductPlan(msgIn, attr, gIn)),
    tp2 = steerable(new TensorProductPlan(hidden, attr, gIn)),
    tp3 = steerable(new TensorProductPlan(updIn, attr, gIn)),
    tp4 = tensorProductOf(new TensorProductPlan(hidden, attr, hOut));
  const A = shDim(lmax),
    dIn = hIn.dim,
    dH = hidden.dim,
    dOut = hOut.dim,
    s = 3 + dIn;
  // an edge's row [h_i | h_j | ‖r_ij‖ | Y(r_ij)] ↦ m_ij
  const message = seq(tp1, par(gate, id(A)), tp2, par(gate, discard(A)));
  const agg = aggregate(n, dH, aggregation, scalars.dim);
  const messages = seq(cloudEdges(n, lmax, dIn), mapSet(message, n * (n - 1)), agg);
  // a point's row [x_i | h_i | m_i | b_i] ↦ [x_i | h_i′], h_i′ = TP₄(Gate(TP₃([h_i | m_i], b_i)), b_i) (+ h_i)
  const residual = String(hIn) === String(hOut);
  const update = seq(
    par(id(3), copy(dIn), id(dH + A)),
    par(id(s), tp3),
    par(id(s), gate, id(A)),
    par(id(s), tp4),
    residual ? par(id(3), add(dOut)) : par(id(3), discard(dIn), id(dOut)),
  );
  const body = seq(
    copy([n, s]),
    par(transpose([n, s]), seq(messages, transpose([n, dH]))),
    transpose([s + dH, n]),
    nodeAttributes(n, lmax, dIn + dH),
    mapSet(update, n),
  );
  const tpNames = (tp: Para, k: number): string[] => tp.params.map((p) => `tp${k}.${p.name}`);
  const names = [...tpNames(tp1, 1), ...tpNames(tp2, 2), ...agg.params.map((p) => p.name), ...tpNames(tp3, 3), ...tpNames(tp4, 4)];
  return defined('e3_conv', [n, String(hIn), String(hid), String(hOut), lmax, ...(aggregation === 'attention' ? ['attention'] : [])], body, undefined, names);
}
