import { addCosts, RangeArgError, TooLargeError } from '../errors.js';
import type { CostEstimate } from '../errors.js';
import type { Para } from '../para/para.js';
import type { LayerDef } from './grammar.js';
import { symmetric, translations1d, translations2d } from '../symmetry/group/group.js';
import { MAX_POINTS } from '../symmetry/group/parse-group.js';
import { T, V } from '../symmetry/group/rep.js';
import { basisCost, toGroup, toRep } from '../symmetry/solve/resolve.js';
import { parseGraph } from '../nn/equivariant/message-passing.js';
import { conv1dPeriodic, conv2dPeriodic } from '../nn/equivariant/conv.js';
import { deepsetsLayer } from '../nn/equivariant/deepsets.js';
import { bilinear, emlp, gated } from '../nn/equivariant/gated.js';
import { equivariantLinear } from '../nn/equivariant/linear.js';
import { messagePassing } from '../nn/equivariant/message-passing.js';
import { normGated } from '../nn/equivariant/norm.js';
import { ropeAttention } from '../nn/equivariant/rope.js';
import type { RopeOptions } from '../nn/equivariant/rope.js';
import { displace } from '../nn/equivariant/displace.js';
import { pointsLinear } from '../nn/equivariant/points-linear.js';
import { e3Conv } from '../nn/equivariant/e3-conv.js';
import type { Aggregation } from '../nn/equivariant/e3-conv.js';
import { irrepsGate } from '../nn/equivariant/irreps-gate.js';
import { irrepsNorm } from '../nn/equivariant/irreps-norm.js';
import { shEmbedding } from '../nn/equivariant/sh-embedding.js';
import { irrepsLinear, tensorProduct } from '../nn/equivariant/tensor-product.js';

const defs: LayerDef[] = [];

const s = (v: unknown): string => String(v);
const n = (v: unknown): number => v as number;

/** The cost of equivariant(G,in,out): its weight basis and its bias basis (the cost of the layers that make them). */
const linearCost = (g: unknown, i: unknown, o: unknown): CostEstimate => {
  const G = toGroup(s(g)),
    rout = toRep(s(o));
  return addCosts(basisCost(G, toRep(s(i)), rout), basisCost(G, T(0), rout));
};

/** The neighbour map a periodic convolution keeps: one index per (input channel, tap, point). */
const unfoldingCost = (cin: number, taps: number, points: number): CostEstimate => ({ bytes: 4 * cin * taps * points });

/**
 * The cost of a layer over n points whose point mixers are dense n×n matrices from a basis of
 * Hom_G(V, V): more than MAX_POINTS points is refused before a group on them is made.
 */
const pointsCost = (layer: string, points: number, group: () => Parameters<typeof basisCost>[0], mixers: number): CostEstimate => {
  if (!(points <= MAX_POINTS)) throw new TooLargeError(`${layer}: ${points} points; at most ${MAX_POINTS}`, { elements: points });
  return addCosts(basisCost(group(), V, V), { bytes: 8 * mixers * points * points });
};

defs.push({
  name: 'equivariant',
  args: ['string', 'string', 'string'],
  doc: 'equivariant(G,in,out): linear map over the derived basis of Hom_G(in,out), e.g. equivariant(S(4),V,V)',
  cost: linearCost,
  make: (g, i, o) => equivariantLinear(s(g), s(i), s(o)),
});
defs.push({
  name: 'gated',
  args: ['string', 'string'],
  doc: 'gated(G,rep): gated nonlinearity, input rep plus one gate scalar per non-scalar block',
  make: (g, r) => gated(s(g), s(r)),
});
defs.push({
  name: 'norm_gated',
  args: ['string', 'string'],
  doc: 'norm_gated(G,rep): v ↦ v·σ(‖v‖ + b) per block, swish on scalars (orthogonal groups)',
  make: (g, r) => normGated(s(g), s(r)),
});
defs.push({ name: 'bilinear', args: ['string', 'string'], doc: 'bilinear(G,rep): x ↦ x ⊕ x⊗x (rep to rep+rep*rep)', make: (g, r) => bilinear(s(g), s(r)) });
defs.push({
  name: 'emlp',
  args: ['string', 'string', 'string', 'string', 'int?'],
  doc: 'emlp(G,in,hidden,out,depth): equivariant MLP with gated nonlinearities',
  cost: (g, i, h, o) => addCosts(linearCost(g, i, h), linearCost(g, h, h), linearCost(g, h, o)),
  make: (g, i, h, o, d) => emlp(s(g), s(i), s(h), s(o), d === undefined ? 2 : n(d)) as Para,
});
defs.push({
  name: 'set_equivariant',
  args: ['int', 'int', 'int'],
  doc: 'set_equivariant(n,cin,cout): DeepSets layer [n,cin] → [n,cout] from the S(n) end',
  cost: (a) => pointsCost('set_equivariant', n(a), () => symmetric(n(a)), 2),
  make: (a, b, c) => deepsetsLayer(n(a), n(b), n(c)),
});
defs.push({
  name: 'message_passing',
  args: ['string', 'int', 'int'],
  doc: 'message_passing(graph,cin,cout): graph = cycle(n) | path(n) | complete(n) | star(n) | (0-1,1-2,…)',
  cost: (g) => {
    const k = parseGraph(s(g)).n;
    return pointsCost('message_passing', k, () => symmetric(k), 4);
  },
  make: (g, a, b) => messagePassing(s(g), n(a), n(b)),
});
defs.push({
  name: 'conv1d_periodic',
  args: ['int', 'int', 'int', 'int'],
  doc: 'conv1d_periodic(n,cin,cout,k): [cin,n] → [cout,n], derived from Trans(n)',
  cost: (a, b, _c, d) =>
    addCosts(
      pointsCost('conv1d_periodic', n(a), () => translations1d(n(a)), 0),
      unfoldingCost(n(b), n(d), n(a)),
    ),
  make: (a, b, c, d) => conv1dPeriodic(n(a), n(b), n(c), n(d)),
});
defs.push({
  name: 'conv2d_periodic',
  args: ['int', 'int', 'int', 'int', 'int'],
  doc: 'conv2d_periodic(h,w,cin,cout,k): [cin,h,w] → [cout,h,w], derived from Trans(h,w)',
  cost: (a, b, c, _d, e) =>
    addCosts(
      pointsCost('conv2d_periodic', n(a) * n(b), () => translations2d(n(a), n(b)), 0),
      unfoldingCost(n(c), n(e) * n(e), n(a) * n(b)),
    ),
  make: (a, b, c, d, e) => conv2dPeriodic(n(a), n(b), n(c), n(d), n(e)),
});
defs.push({
  name: 'rope_attention',
  args: ['int', 'int', 'string?', 'string?'],
  doc: 'rope_attention(T,d[,P][,layout]): self-attention with RoPE, period P optional, layout interleaved (default) or half (GPT-NeoX)',
  make: (t, d, a, b) => {
    const opts: RopeOptions = {};
    for (const v of [a, b]) {
      if (v === undefined) continue;
      if (v === 'half' || v === 'interleaved') opts.layout = v;
      else if (/^\d+(\.\d+)?$/.test(s(v))) opts.period = Number(v);
      else throw new RangeArgError(`rope_attention: expected a period (a number) or a layout (interleaved, half), got '${s(v)}'`);
    }
    return ropeAttention(n(t), n(d), opts);
  },
});

const opt = (v: unknown): number | undefined => (v === undefined ? undefined : (v as number));
defs.push({
  name: 'tensor_product',
  args: ['string', 'string', 'string', 'int?'],
  doc: 'tensor_product(in1,in2,out[,n]): [x1|x2] → out, learned weights per path l1⊗l2→l3, e.g. tensor_product(1x0e+1x1o,1x1o,1x0e+1x1e)',
  make: (a, b, c, k) => tensorProduct(s(a), s(b), s(c), opt(k)),
});
defs.push({
  name: 'irreps_linear',
  args: ['string', 'string', 'int?'],
  doc: 'irreps_linear(in,out[,n]): equivariant linear map between irreps (per-ℓ weights, bias on 0e)',
  make: (a, b, k) => irrepsLinear(s(a), s(b), opt(k)),
});
defs.push({
  name: 'irreps_gate',
  args: ['string', 'string', 'int?'],
  doc: 'irreps_gate(scalars,gated[,n]): [scalars|gates|gated] → [swish(scalars)|σ(gate)·gated]',
  make: (a, b, k) => irrepsGate(s(a), s(b), opt(k)),
});
defs.push({
  name: 'irreps_norm',
  args: ['string', 'int?'],
  doc: 'irreps_norm(irreps[,n]): v ↦ v·σ(‖v‖+b) per irrep copy, swish on 0e',
  make: (a, k) => irrepsNorm(s(a), opt(k)),
});
defs.push({
  name: 'sh_embedding',
  args: ['int', 'int', 'int', 'number'],
  doc: 'sh_embedding(n,lmax,nbasis,rmax): points [n,3] → pairs [n(n−1), R_k(|r|)·Y_l(r̂)]',
  make: (a, b, c, d) => shEmbedding(n(a), n(b), n(c), n(d)),
});
defs.push({
  name: 'e3_conv',
  args: ['int', 'string', 'string', 'string', 'int', 'string?'],
  doc: 'e3_conv(n,in,hidden,out,lmax[,attention]): E(3)-equivariant message passing on [n,3+in] → [n,3+out] (SEGNN)',
  make: (a, b, c, d, e, f) => e3Conv(n(a), s(b), s(c), s(d), n(e), f === undefined ? 'sum' : (s(f) as Aggregation)),
});
defs.push({
  name: 'points_linear',
  args: ['int', 'string', 'string'],
  doc: 'points_linear(n,in,out): irreps_linear(in,out) on the features of n points, [n,3+in] → [n,3+out], positions passed on',
  make: (a, b, c) => pointsLinear(n(a), s(b), s(c)),
});
defs.push({ name: 'displace', args: ['int'], doc: 'displace(n): [n,3+3] positions and a vector → [n,3] moved positions', make: (a) => displace(n(a)) });

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const equivariantLayers: readonly LayerDef[] = defs;
