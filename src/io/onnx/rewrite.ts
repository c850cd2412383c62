import { elementwise } from '../../nn/activation.js';
import { avgpool2d } from '../../nn/avgpool2d.js';
import { conv1d } from '../../nn/conv1d.js';
import { conv2d } from '../../nn/conv2d.js';
import { dense } from '../../nn/dense.js';
import { embedding } from '../../nn/embedding.js';
import { flatten } from '../../nn/flatten.js';
import { globalavgpool } from '../../nn/globalavgpool.js';
import { layernorm } from '../../nn/layernorm.js';
import { leakyRelu } from '../../nn/leaky-relu.js';
import { maxpool2d } from '../../nn/maxpool2d.js';
import { NORM_EPS } from '../../nn/norm-lens.js';
import { softmax } from '../../nn/softmax.js';
import { isBatch } from '../../ops/dim.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { matchActivation } from './rewrite-activation.js';
import { matchAttention } from './rewrite-attention.js';
import { matchLayerNormParts } from './rewrite-norm.js';
import type { Ir, IrBox } from './ir.js';
import type { RewriteRule, RewriteView } from './rewrite-rule.js';

/**
 * The readable rewrites: operator sub-diagrams that are named layers, folded into them — for a
 * spec that reads like the model and for speed (a layer runs on its fused kernels). Each rule
 * looks at one box and the boxes around it, and matches only when the layer computes the same
 * function of the same parameters (a weight read by nothing else, the attributes the layer
 * has). What no rule matches stays operators, which run and train as they are.
 */
export type { RewriteRule, RewriteView, Rewritten } from './rewrite-rule.js';

const layerBox = (layer: Para, theta: readonly Tensor[], input: number, output: number, from: string): IrBox => ({
  kind: 'layer',
  layer,
  theta,
  inputs: [input],
  outputs: [output],
  from,
});

/** Wᵀ of a matrix. */
function transposed(w: Tensor): Tensor {
  const [r, c] = w.shape as [number, number];
  const t = Tensor.zeros([c, r]);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) t.data[j * r + i] = w.data[i * c + j]!;
  return t;
}

const attr = (b: IrBox, k: string): unknown => (b.kind === 'op' ? b.op.attrs[k] : undefined);
const ints = (b: IrBox, k: string): readonly number[] => (attr(b, k) as readonly number[] | undefined) ?? [];
const allEqual = (xs: readonly number[], v?: number): boolean => xs.every((x) => x === (v ?? xs[0]));
const paramBox = (v: RewriteView, w: number): IrBox[] => {
  const p = v.producer(w);
  return p ? [p] : [];
};

/** Gemm(x, W, b) with α = β = 1 on [B, in]: dense(in,out). */
const gemmToDense: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'Gemm' || attr(b, 'transA') !== 0 || attr(b, 'alpha') !== 1 || attr(b, 'beta') !== 1) return undefined;
  const [x, wWire, cWire] = b.inputs as [number, number, number | undefined];
  if (!v.batchFirst(x) || v.ir.wires[x]!.shape.length !== 2) return undefined;
  const w = v.ownParam(wWire, b);
  if (!w || w.rank !== 2) return undefined;
  const W = attr(b, 'transB') === 1 ? w : transposed(w);
  const [out, inn] = W.shape as [number, number];
  const c = cWire === undefined ? undefined : v.ownParam(cWire, b);
  // a bias of one value per output, or one value for all (broadcast)
  if (cWire !== undefined && (!c || !(c.size === 1 || (c.size === out && c.shape[c.rank - 1] === out)))) return undefined;
  const bias = !c ? Tensor.zeros([out]) : c.size === out ? c.reshape([out]) : Tensor.full([out], c.data[0]!);
  return {
    remove: [b, ...paramBox(v, wWire), ...(cWire !== undefined ? paramBox(v, cWire) : [])],
    add: layerBox(dense(inn, out), [W, bias], x, b.outputs[0]!, b.from),
    what: 'dense',
  };
};

/** MatMul(x, W) (then Add(·, b)) on [B, …, in] with W [in, out]: dense(in,out) at every position. */
const matmulToDense: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'MatMul') return undefined;
  const [x, wWire] = b.inputs as [number, number];
  const w = v.ownParam(wWire, b);
  const xs = v.ir.wires[x]!.shape;
  if (!w || w.rank !== 2 || !v.batchFirst(x) || xs.length < 2 || xs[xs.length - 1] !== w.shape[0]) return undefined;
  const [inn, out] = w.shape as [number, number];
  const y = b.outputs[0]!;
  const next = v.readers(y);
  const add = next.length === 1 && next[0]!.kind === 'op' && next[0]!.op.def.name === 'Add' && y !== v.ir.output ? next[0]! : undefined;
  const biasWire = add?.inputs.find((i) => i !== y);
  const bias = add && biasWire !== undefined ? v.ownParam(biasWire, add) : undefined;
  const withBias = !!(add && bias && bias.size === out && bias.shape[bias.rank - 1] === out && v.batchFirst(add.outputs[0]!));
  return {
    remove: [b, ...paramBox(v, wWire), ...(withBias ? [add!, ...paramBox(v, biasWire!)] : [])],
    add: layerBox(dense(inn, out), [transposed(w), withBias ? bias!.reshape([out]) : Tensor.zeros([out])], x, withBias ? add!.outputs[0]! : y, b.from),
    what: 'dense',
  };
};

/** Conv with one group, a square kernel, one stride and the same padding on every side: conv2d (conv1d). */
const convToLayer: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'Conv' || attr(b, 'group') !== 1 || attr(b, 'auto_pad') !== 'NOTSET') return undefined;
  const [x, wWire, bWire] = b.inputs as [number, number, number | undefined];
  const w = v.ownParam(wWire, b);
  if (!w || !v.batchFirst(x)) return undefined;
  const rank = w.rank - 2;
  const k = w.shape.slice(2);
  const s = ints(b, 'strides').length ? ints(b, 'strides') : k.map(() => 1);
  const p = ints(b, 'pads').length ? ints(b, 'pads') : [0];
  const d = ints(b, 'dilations');
  if ((rank !== 1 && rank !== 2) || !allEqual(k) || !allEqual(s) || !allEqual(p) || !allEqual(d, 1)) return undefined;
  const bias = bWire === undefined ? undefined : v.ownParam(bWire, b);
  if (bWire !== undefined && !bias) return undefined;
  const [O, C] = w.shape as [number, number];
  const layer = rank === 2 ? conv2d(C, O, k[0]!, s[0]!, p[0]!) : conv1d(C, O, k[0]!, s[0]!, p[0]!);
  return {
    remove: [b, ...paramBox(v, wWire), ...(bWire !== undefined ? paramBox(v, bWire) : [])],
    add: layerBox(layer, [w, bias ? bias.reshape([O]) : Tensor.zeros([O])], x, b.outputs[0]!, b.from),
    what: rank === 2 ? 'conv2d' : 'conv1d',
  };
};

/** MaxPool and AveragePool on images with a square kernel, one stride, no padding: maxpool2d and avgpool2d. */
const poolToLayer: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || (b.op.def.name !== 'MaxPool' && b.op.def.name !== 'AveragePool')) return undefined;
  const x = b.inputs[0]!;
  const k = ints(b, 'kernel_shape');
  const s = ints(b, 'strides').length ? ints(b, 'strides') : [1, 1];
  if (
    !v.batchFirst(x) ||
    v.ir.wires[x]!.shape.length !== 4 ||
    k.length !== 2 ||
    !allEqual(k) ||
    !allEqual(s) ||
    !allEqual(ints(b, 'pads'), 0) ||
    !allEqual(ints(b, 'dilations'), 1)
  )
    return undefined;
  if (attr(b, 'ceil_mode') !== 0 || attr(b, 'auto_pad') !== 'NOTSET' || (attr(b, 'storage_order') ?? 0) !== 0) return undefined;
  const layer = b.op.def.name === 'MaxPool' ? maxpool2d(k[0]!, s[0]!) : avgpool2d(k[0]!, s[0]!);
  return { remove: [b], add: layerBox(layer, [], x, b.outputs[0]!, b.from), what: layer.kind };
};

/** Flatten(axis 1), or a Reshape to [B, n] of a sample of more axes: flatten. */
const flattenRule: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.inputs.length !== 1 || !v.batchFirst(b.inputs[0]!) || !v.batchFirst(b.outputs[0]!)) return undefined;
  const inRank = v.ir.wires[b.inputs[0]!]!.shape.length,
    out = v.ir.wires[b.outputs[0]!]!.shape;
  const isFlatten = (b.op.def.name === 'Flatten' && attr(b, 'axis') === 1) || (b.op.def.name === 'Reshape' && out.length === 2 && inRank > 2);
  return isFlatten && inRank > 2 ? { remove: [b], add: layerBox(flatten(), [], b.inputs[0]!, b.outputs[0]!, b.from), what: 'flatten' } : undefined;
};

/** GlobalAveragePool then a flatten: globalavgpool ([C,H,W] → [C]). */
const globalPoolRule: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'GlobalAveragePool' || !v.batchFirst(b.inputs[0]!) || v.ir.wires[b.inputs[0]!]!.shape.length !== 4) return undefined;
  const next = v.readers(b.outputs[0]!);
  const f = next.length === 1 ? next[0]! : undefined;
  const flat =
    f &&
    (f.kind === 'layer'
      ? f.layer.kind === 'flatten'
      : f.kind === 'op' &&
        ((f.op.def.name === 'Flatten' && f.op.attrs.axis === 1) || (f.op.def.name === 'Reshape' && v.ir.wires[f.outputs[0]!]!.shape.length === 2)));
  if (!f || !flat || b.outputs[0] === v.ir.output) return undefined;
  return { remove: [b, f], add: layerBox(globalavgpool(), [], b.inputs[0]!, f.outputs[0]!, b.from), what: 'globalavgpool' };
};

/** LayerNormalization over the last axis with ε = 1e-5 (paralens's) and weights of its width: layernorm(d). */
const layerNormToLayer: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'LayerNormalization') return undefined;
  const [x, gWire, bWire] = b.inputs as [number, number, number | undefined];
  const xs = v.ir.wires[x]!.shape;
  const axis = attr(b, 'axis') as number;
  if (!v.batchFirst(x) || !(axis === -1 || axis === xs.length - 1) || Math.fround(attr(b, 'epsilon') as number) !== Math.fround(NORM_EPS)) return undefined;
  const d = xs[xs.length - 1] as number;
  const gain = v.ownParam(gWire, b),
    bias = bWire === undefined ? undefined : v.ownParam(bWire, b);
  if (!gain || gain.size !== d || (bWire !== undefined && (!bias || bias.size !== d))) return undefined;
  return {
    remove: [b, ...paramBox(v, gWire), ...(bWire !== undefined ? paramBox(v, bWire) : [])],
    add: layerBox(layernorm(d), [gain.reshape([d]), bias ? bias.reshape([d]) : Tensor.zeros([d])], x, b.outputs[0]!, b.from),
    what: 'layernorm',
  };
};

/** Gather(table, ids) along axis 0 of a [V, d] weight on token ids [B, …]: embedding(V,d). */
const embeddingRule: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.op.def.name !== 'Gather' || attr(b, 'axis') !== 0) return undefined;
  const [tWire, ids] = b.inputs as [number, number];
  const table = v.ownParam(tWire, b);
  if (!table || table.rank !== 2 || !v.batchFirst(ids) || !v.batchFirst(b.outputs[0]!)) return undefined;
  const [V, d] = table.shape as [number, number];
  return { remove: [b, ...paramBox(v, tWire)], add: layerBox(embedding(V, d), [table], ids, b.outputs[0]!, b.from), what: 'embedding' };
};

const NAMED_ACTIVATIONS: Record<string, () => Para> = {
  Relu: () => elementwise('relu'),
  Sigmoid: () => elementwise('sigmoid'),
  Tanh: () => elementwise('tanh'),
  Softplus: () => elementwise('softplus'),
};

/** The activations the catalogue names: relu, sigmoid, tanh, softplus, leaky_relu, gelu (tanh), softmax over the last axis. */
const activationToLayer: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.inputs.length !== 1) return undefined;
  const x = b.inputs[0]!,
    name = b.op.def.name;
  let layer: Para | undefined = NAMED_ACTIVATIONS[name]?.();
  if (name === 'LeakyRelu') layer = leakyRelu(attr(b, 'alpha') as number);
  if (name === 'Gelu' && attr(b, 'approximate') === 'tanh') layer = elementwise('gelu');
  const rank = v.ir.wires[x]!.shape.length;
  if (name === 'Softmax' && v.batchFirst(x) && rank >= 2 && (attr(b, 'axis') === -1 || attr(b, 'axis') === rank - 1)) layer = softmax();
  if (!layer || !v.batchFirst(x)) return undefined;
  return { remove: [b], add: layerBox(layer, [], x, b.outputs[0]!, b.from), what: layer.kind };
};

/** A box that computes the identity (a Pad of zeros, an Identity, a Dropout read in evaluation and export alike, a Cast to float, a Reshape to the same shape): left out. */
const identityRule: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.inputs.length !== 1 || b.outputs.length !== 1) return undefined;
  const a = b.op.attrs,
    name = b.op.def.name;
  const same = (p: readonly number[]): boolean => p.every((d, i) => d === i);
  const none =
    name === 'Identity' ||
    (name === 'Pad' && (a.pads as readonly number[]).every((p) => p === 0)) ||
    (name === 'Cast' && a.to === 'float') ||
    (name === 'Transpose' && (a.perm as readonly number[]).length > 0 && same(a.perm as readonly number[])) ||
    (name === 'Reshape' && sameShape(v.ir.wires[b.inputs[0]!]!.shape, v.ir.wires[b.outputs[0]!]!.shape));
  return none ? { remove: [b], alias: [b.inputs[0]!, b.outputs[0]!], what: 'nothing (the identity)' } : undefined;
};

/**
 * An Unsqueeze undone by a Squeeze: nothing. Two Transposes in a row (the first read by the second alone): one, by the composed
 * permutation; two Reshapes in a row, whose shapes copy (0) only the batch axis: the second of
 * the first's input. What is left may be the identity, left out in the next pass (the
 * Transposes an exporter wraps around a recurrent node meet those import wraps around the layer).
 */
const movementPairRule: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || b.inputs.length !== 1) return undefined;
  const name = b.op.def.name;
  const p = v.producer(b.inputs[0]!);
  // Unsqueeze then Squeeze of the same axes: nothing
  if (name === 'Squeeze' && p?.kind === 'op' && p.op.def.name === 'Unsqueeze' && v.onlyReader(b.inputs[0]!, b)) {
    const a = p.op.attrs.axes as readonly number[],
      c = b.op.attrs.axes as readonly number[] | undefined;
    if (c && a.length === c.length && a.every((x, i) => x === c[i] && x >= 0))
      return { remove: [p, b], alias: [p.inputs[0]!, b.outputs[0]!], what: 'nothing (the identity)' };
  }
  if (name !== 'Transpose' && name !== 'Reshape') return undefined;
  if (!p || p.kind !== 'op' || p.op.def.name !== name || p.inputs.length !== 1 || !v.onlyReader(b.inputs[0]!, b)) return undefined;
  let op = b.op;
  if (name === 'Transpose') {
    const p1 = p.op.attrs.perm as readonly number[],
      p2 = b.op.attrs.perm as readonly number[];
    if (!p1.length || p1.length !== p2.length) return undefined;
    op = b.op.def.make({ ...b.op.attrs, perm: p2.map((j) => p1[j]!) });
  } else {
    const batchOnly = (r: IrBox & { kind: 'op' }): boolean =>
      v.batchFirst(r.inputs[0]!) && (r.op.attrs.shape as readonly unknown[]).every((d, i) => d !== 0 || i === 0) && r.op.attrs.allowzero !== 1;
    if (!batchOnly(p) || !batchOnly(b)) return undefined;
  }
  return {
    remove: [p, b],
    add: { kind: 'op', op, inputs: p.inputs, outputs: b.outputs, from: `${p.from}+${b.from}` },
    what: 'nothing (two movements made one)',
  };
};

const sameShape = (s: readonly (number | { k: number })[], t: readonly (number | { k: number })[]): boolean =>
  s.length === t.length && s.every((d, i) => (typeof d === 'number' ? d === t[i] : typeof t[i] === 'object' && d.k === (t[i] as { k: number }).k));

/** The rules, in the order they run: sub-diagrams into operators first (GELU, layer norm written out), then operators into layers. */
export const REWRITES: readonly (readonly [string, RewriteRule])[] = [
  ['identity', (b, v) => identityRule(b, v) ?? movementPairRule(b, v)],
  ['activation written out', matchActivation],
  ['layer norm written out', matchLayerNormParts],
  ['gemm', gemmToDense],
  ['matmul', matmulToDense],
  ['conv', convToLayer],
  ['pool', poolToLayer],
  ['global pool', globalPoolRule],
  ['flatten', flattenRule],
  ['layernorm', layerNormToLayer],
  ['embedding', embeddingRule],
  ['activation', activationToLayer],
  ['attention', matchAttention],
];

function view(ir: Ir): RewriteView {
  const { producer, readers } = ir.index();
  const positions = new Map<IrBox, number>();
  ir.boxes.forEach((b, i) => b && positions.set(b, i));
  const batchFirst = (w: number): boolean => {
    const s = ir.wires[w]!.shape;
    return s.length >= 1 && isBatch(s[0]!) && s[0].k === 1 && s.slice(1).every((d) => !isBatch(d));
  };
  const onlyReader = (w: number, b: IrBox): boolean => w !== ir.output && (readers.get(w) ?? []).length === 1 && readers.get(w)![0] === b;
  return {
    ir,
    position: (b) => positions.get(b) ?? -1,
    producer: (w) => producer.get(w),
    readers: (w) => readers.get(w) ?? [],
    batchFirst,
    onlyReader,
    ownParam: (w, reader) => {
      const p = producer.get(w);
      return p?.kind === 'param' && onlyReader(w, reader) ? p.value : undefined;
    },
    scalar: (w) => {
      const p = producer.get(w);
      return (p?.kind === 'constant' || p?.kind === 'param') && p.value.size === 1 ? p.value.data[0] : undefined;
    },
  };
}

/** Applies the rewrites, each in passes over the boxes until it matches nothing more; returns a note per kind of fold. */
export function rewrite(ir: Ir): string[] {
  const counts = new Map<string, number>();
  for (const [, rule] of REWRITES) {
    for (let pass = 0; pass < 4; pass++) {
      const v = view(ir);
      const position = new Map<IrBox, number>();
      ir.boxes.forEach((x, i) => x && position.set(x, i));
      const claimed = new Set<IrBox>();
      const replaced = new Map<IrBox, IrBox>();
      const alias = new Map<number, number>();
      for (const b of ir.live()) {
        if (claimed.has(b)) continue;
        const r = rule(b, v);
        if (!r || r.remove.some((x) => claimed.has(x))) continue;
        for (const x of r.remove) claimed.add(x);
        if (r.alias) alias.set(r.alias[1], r.alias[0]);
        // the new box takes the place of the last box it replaces (its inputs are written before, its outputs read after)
        if (r.add) {
          const last = r.remove.reduce((at, x) => Math.max(at, position.get(x) ?? -1), -1);
          replaced.set(ir.boxes[last]!, r.add);
        }
        counts.set(r.what, (counts.get(r.what) ?? 0) + 1);
      }
      if (claimed.size === 0) break;
      ir.boxes = ir.boxes.map((x) => (x && replaced.has(x) ? replaced.get(x)! : x && claimed.has(x) ? undefined : x));
      ir.boxes = ir.boxes.filter((x) => x !== undefined);
      if (alias.size) {
        const to = (w: number): number => {
          let u = w;
          while (alias.has(u)) u = alias.get(u)!;
          return u;
        };
        ir.boxes = ir.boxes.map((x) => (x && x.inputs.some((w) => alias.has(w)) ? ({ ...x, inputs: x.inputs.map(to) } as IrBox) : x));
        ir.output = to(ir.output);
      }
    }
  }
  const folds = [...counts].filter(([what]) => !what.startsWith('nothing')).map(([what, n]) => (n > 1 ? `${what} ×${n}` : what));
  const none = counts.get('nothing (the identity)');
  return [
    ...(folds.length ? [`operators read as layers: ${folds.join(', ')}`] : []),
    ...(none ? [`operators that compute the identity left out: ${none}`] : []),
  ];
}
