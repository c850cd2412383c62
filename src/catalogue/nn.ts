import { RangeArgError, SpecError } from '../errors.js';
import { isGeometryText, parseGeometry } from '../symmetry/geometry/geometry.js';
import { deriveAttentionCost } from '../symmetry/geometry/derive.js';
import { pointAttention } from '../nn/equivariant/point-attention.js';
import type { LayerDef } from './grammar.js';
import { elementwise } from '../nn/activation.js';
import { dense } from '../nn/dense.js';
import { leakyRelu } from '../nn/leaky-relu.js';
import { softmax } from '../nn/softmax.js';
import { avgpool2d } from '../nn/avgpool2d.js';
import { conv1d } from '../nn/conv1d.js';
import { conv2d } from '../nn/conv2d.js';
import { flatten } from '../nn/flatten.js';
import { tokens } from '../nn/tokens.js';
import { globalavgpool } from '../nn/globalavgpool.js';
import { maxpool2d } from '../nn/maxpool2d.js';
import { attention } from '../nn/attention.js';
import type { Mask } from '../nn/attention.js';
import { embedding } from '../nn/embedding.js';
import { layernorm } from '../nn/layernorm.js';
import { rmsnorm } from '../nn/rmsnorm.js';
import { tied } from '../nn/tied.js';
import { transformer } from '../nn/transformer.js';
import type { Para } from '../para/para.js';

const defs: LayerDef[] = [];

defs.push({ name: 'dense', args: ['int', 'int'], doc: 'dense(in,out): affine map x ↦ x·Wᵀ + b', make: (i, o) => dense(i as number, o as number) });
const size = (n: unknown, layer: string): number[] | undefined => {
  if (n === undefined) return undefined;
  if (!((n as number) >= 1)) throw new RangeArgError(`${layer}: the size must be a positive integer, got ${n}`);
  return [n as number];
};

for (const op of ['sigmoid', 'tanh', 'relu', 'gelu', 'softplus'] as const) {
  defs.push({
    name: op,
    args: ['int?'],
    doc: `${op} or ${op}(n): elementwise ${op} (n features; inferred when composed)`,
    make: (n) => elementwise(op, size(n, op)),
  });
}
defs.push({
  name: 'leaky_relu',
  args: ['number?', 'int?'],
  doc: 'leaky_relu(alpha[,n]): x ↦ max(x, alpha·x), alpha defaults to 0.01',
  make: (a, n) => leakyRelu(a === undefined ? 0.01 : (a as number), size(n, 'leaky_relu')),
});
defs.push({
  name: 'softmax',
  args: ['int?'],
  doc: 'softmax or softmax(n): normalised exponentials over the last axis',
  make: (n) => softmax(size(n, 'softmax')),
});

const opt = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);

defs.push({
  name: 'conv2d',
  args: ['int', 'int', 'int', 'int?', 'int?'],
  doc: 'conv2d(inC,outC,k,stride,pad): 2-d convolution [inC,H,W] → [outC,H′,W′], stride 1 and pad 0 by default',
  make: (i, o, k, s, p) => conv2d(i as number, o as number, k as number, opt(s, 1), opt(p, 0)),
});
defs.push({
  name: 'conv1d',
  args: ['int', 'int', 'int', 'int?', 'int?'],
  doc: 'conv1d(inC,outC,k,stride,pad): 1-d convolution [inC,L] → [outC,L′], stride 1 and pad 0 by default',
  make: (i, o, k, s, p) => conv1d(i as number, o as number, k as number, opt(s, 1), opt(p, 0)),
});
defs.push({
  name: 'maxpool2d',
  args: ['int', 'int?'],
  doc: 'maxpool2d(k,stride): maximum over k×k windows of [C,H,W], stride k by default',
  make: (k, s) => maxpool2d(k as number, opt(s, k as number)),
});
defs.push({
  name: 'avgpool2d',
  args: ['int', 'int?'],
  doc: 'avgpool2d(k,stride): mean over k×k windows of [C,H,W], stride k by default',
  make: (k, s) => avgpool2d(k as number, opt(s, k as number)),
});
defs.push({ name: 'flatten', args: [], doc: 'flatten: [C,H,W] → [C·H·W] (row-major)', make: () => flatten() });
defs.push({
  name: 'tokens',
  args: [],
  doc: 'tokens: [C,H,W] → [H·W,C], one token per pixel in row-major order (what attention on grid(H,W) takes)',
  make: () => tokens(),
});
defs.push({ name: 'globalavgpool', args: [], doc: 'globalavgpool: [C,H,W] → [C], the mean of each channel', make: () => globalavgpool() });

const n = (v: unknown): number => v as number;
const maskOf = (v: unknown): Mask => (v === undefined ? 'causal' : (String(v) as Mask));
const POS =
  'pos = rope | relative | relative(K) | absolute(Tmax) | none, or a geometry whose kernels the solver derives: seq(T) | seq(T,causal) | seq(T,rotary) | cyclic(T) | grid(H,W) | grid(H,W,D4) | set(n)';

/** A declared geometry decides the mask itself (seq(T,causal)): a mask argument beside one is refused. */
function noMaskWithGeometry(layer: string, pos: string, mask: unknown): void {
  if (mask !== undefined && isGeometryText(pos))
    throw new SpecError(
      `${layer}: the geometry ${pos} decides which keys a query sees (write seq(T,causal) for a causal one); drop the mask '${String(mask)}'`,
    );
}

/** The width argument of attention: an integer d, or for points(n) the features' irreps (S x0e + C x1o). */
function attentionLayer(d: unknown, h: unknown, p: unknown, m: unknown): Para {
  const pos = String(p),
    width = String(d);
  noMaskWithGeometry('attention', pos, m);
  if (isGeometryText(pos)) {
    const g = parseGeometry(pos);
    if (g.kind === 'points') return pointAttention(width, n(h), g);
  }
  if (!/^\d+$/.test(width)) throw new SpecError(`attention: the width d must be a positive integer (irreps S x0e + C x1o only with points(n)), got '${width}'`);
  return attention(Number(width), n(h), pos, maskOf(m));
}
defs.push({
  name: 'embedding',
  args: ['int', 'int'],
  doc: 'embedding(V,d): token ids [T] → vectors [T,d], a learned table [V,d]; V may be vocab',
  make: (v, d) => embedding(n(v), n(d)),
});
defs.push({ name: 'layernorm', args: ['int'], doc: 'layernorm(d): g ⊙ (x − μ)/σ + b over the last axis (every position)', make: (d) => layernorm(n(d)) });
defs.push({ name: 'rmsnorm', args: ['int'], doc: 'rmsnorm(d): g ⊙ x/rms(x) over the last axis (every position)', make: (d) => rmsnorm(n(d)) });
defs.push({
  name: 'attention',
  args: ['string', 'int', 'string', 'string?'],
  doc: `attention(d,heads,pos[,mask]): multi-head self-attention on [T,d], causal unless mask = none; ${POS}; on a point cloud attention(S x0e+C x1o,heads,points(n[,lmax])) on [n,3+S+3C]`,
  cost: (_d, _h, p) => (isGeometryText(String(p)) ? deriveAttentionCost(parseGeometry(String(p))) : {}),
  make: attentionLayer,
});
defs.push({
  name: 'transformer',
  args: ['int', 'int', 'int', 'string', 'string?'],
  doc: `transformer(d,heads,ff,pos): residual(layernorm(d) >> attention(d,heads,pos)) >> residual(layernorm(d) >> dense(d,ff) >> gelu >> dense(ff,d)); ${POS}`,
  make: (d, h, f, p, m) => {
    noMaskWithGeometry('transformer', String(p), m);
    return transformer(n(d), n(h), n(f), String(p), maskOf(m));
  },
});
defs.push({
  name: 'tied',
  args: ['morphism'],
  doc: 'tied(f): f with its first embedding(V,d) and its last dense(d,V) head sharing one [V,d] weight',
  make: (f) => tied(f as Para),
});

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const nnLayers: readonly LayerDef[] = defs;
