import { attention } from '../../nn/attention.js';
import { isBatch } from '../../ops/dim.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { IrBox } from './ir.js';
import type { RewriteRule, RewriteView } from './rewrite-rule.js';

/**
 * Multi-head self-attention written out, read as attention(d,heads,none[,none]): the sub-diagram
 * paralens's own export writes (and PyTorch's export of attention written plainly):
 *
 *   x ─ dense(d,d) ─ Reshape[B,T,h,dh] ─ Transpose(0,2,1,3) ───────────────────────┐
 *   x ─ dense(d,d) ─ Reshape ─ Transpose(0,2,3,1) (or (0,2,1,3) then (0,1,3,2)) ─ MatMul ─ ·1/√dh (Mul or Div)
 *     ─ [causal mask: Add of −∞ above the diagonal, or Where(upper triangle, −∞, ·)] ─ softmax ─┐
 *   x ─ dense(d,d) ─ Reshape ─ Transpose(0,2,1,3) ─────────────────────────────────────── MatMul
 *     ─ Transpose(0,2,1,3) ─ Reshape[B,T,d] ─ dense(d,d)
 *
 * with projections without bias (attention has none). Starting from the softmax; anything else
 * stays as it is. The attention layer runs on its fused kernels.
 */

type Box = IrBox;
type OpBox = Extract<IrBox, { kind: 'op' }>;
/** b as an operator box of this name, or undefined. */
const asOp = (b: Box | undefined, name: string): OpBox | undefined => (b?.kind === 'op' && b.op.def.name === name ? b : undefined);
const isOp = (b: Box | undefined, name: string): b is OpBox => asOp(b, name) !== undefined;
const perm = (b: Box): string => (b.kind === 'op' ? ((b.op.attrs.perm as readonly number[] | undefined) ?? []).join(',') : '');
const zeros = (t: Tensor | undefined): boolean => !!t && t.data.every((v) => v === 0);

/** The dense box (no bias, d×d) whose output a head split starts from: x ─ dense ─ Reshape ─ Transpose(p…). */
function projection(v: RewriteView, w: number, take: Box[], perms: readonly string[][]): { x: number; W: Tensor; heads: number } | undefined {
  // undo the transposes back to the Reshape
  let at = w;
  const seen: string[] = [];
  for (let t = asOp(v.producer(at), 'Transpose'); t; t = asOp(v.producer(at), 'Transpose')) {
    seen.unshift(perm(t));
    take.push(t);
    at = t.inputs[0]!;
  }
  if (!perms.some((ps) => ps.join('|') === seen.join('|'))) return undefined;
  const reshape = asOp(v.producer(at), 'Reshape');
  if (!reshape) return undefined;
  take.push(reshape);
  const target = reshape.op.attrs.shape as readonly (number | { k: number })[];
  const dense = v.producer(reshape.inputs[0]!);
  if (dense?.kind !== 'layer' || dense.layer.kind !== 'dense' || !zeros(dense.theta[1]) || dense.theta[0]!.shape[0] !== dense.theta[0]!.shape[1])
    return undefined;
  take.push(dense);
  const heads = target.length === 4 && typeof target[2] === 'number' ? target[2] : undefined;
  return heads ? { x: dense.inputs[0], W: dense.theta[0]!, heads } : undefined;
}

/** Whether the constant c (broadcast to [T,T]) is a causal mask: 0 on and below the diagonal, very negative above. */
function causalAdd(c: Tensor, T: number): boolean {
  if (c.size !== T * T) return false;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (j > i ? !(c.data[i * T + j]! <= -1e30) : c.data[i * T + j] !== 0) return false;
  return true;
}
function causalCondition(c: Tensor, T: number): boolean {
  if (c.size !== T * T) return false;
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if ((c.data[i * T + j] !== 0) !== j > i) return false;
  return true;
}
const constantValue = (v: RewriteView, w: number): Tensor | undefined => {
  const p = v.producer(w);
  return p?.kind === 'constant' || p?.kind === 'param' ? p.value : undefined;
};

export const matchAttention: RewriteRule = (sm, v) => {
  const isSoftmax = (sm.kind === 'layer' && sm.layer.kind === 'softmax') || (isOp(sm, 'Softmax') && (sm.op.attrs.axis === -1 || sm.op.attrs.axis === 3));
  if (!isSoftmax) return undefined;
  const take: Box[] = [sm];
  let s = sm.inputs[0]!;
  let causal = false;
  const shape = v.ir.wires[s]!.shape;
  if (shape.length !== 4 || !isBatch(shape[0]!) || shape[2] !== shape[3] || typeof shape[2] !== 'number') return undefined;
  const T = shape[2];
  // the causal mask
  const added = asOp(v.producer(s), 'Add'),
    chosen = asOp(v.producer(s), 'Where');
  if (added) {
    const masked = added;
    const c = masked.inputs.map((w) => constantValue(v, w));
    const at = c.findIndex((t) => t && causalAdd(t, T));
    if (at < 0) return undefined;
    causal = true;
    take.push(masked, v.producer(masked.inputs[at]!)!);
    s = masked.inputs[1 - at]!;
  } else if (chosen) {
    const masked = chosen;
    const cond = constantValue(v, masked.inputs[0]!),
      neg = constantValue(v, masked.inputs[1]!);
    if (!cond || !causalCondition(cond, T) || !neg || neg.size !== 1 || !(neg.data[0]! <= -1e30)) return undefined;
    causal = true;
    take.push(masked, v.producer(masked.inputs[0]!)!, v.producer(masked.inputs[1]!)!);
    s = masked.inputs[2]!;
  }
  // the scale 1/√dh
  const scale = asOp(v.producer(s), 'Mul') ?? asOp(v.producer(s), 'Div');
  if (!scale) return undefined;
  const cAt = scale.inputs.findIndex((w) => v.scalar(w) !== undefined);
  const dividing = scale.op.def.name === 'Div';
  if (cAt < 0 || (dividing && cAt !== 1)) return undefined;
  const factor = dividing ? 1 / v.scalar(scale.inputs[cAt]!)! : v.scalar(scale.inputs[cAt]!)!;
  take.push(scale, v.producer(scale.inputs[cAt]!)!);
  const scores = asOp(v.producer(scale.inputs[1 - cAt]!), 'MatMul');
  if (!scores) return undefined;
  take.push(scores);
  const q = projection(v, scores.inputs[0]!, take, [['0,2,1,3']]);
  const k = projection(v, scores.inputs[1]!, take, [['0,2,3,1'], ['0,2,1,3', '0,1,3,2']]);
  // the weighted values and the output projection
  const readers = v.readers(sm.outputs[0]!);
  const mix = asOp(readers.length === 1 ? readers[0] : undefined, 'MatMul');
  if (!mix || mix.inputs[0] !== sm.outputs[0]) return undefined;
  take.push(mix);
  const val = projection(v, mix.inputs[1]!, take, [['0,2,1,3']]);
  const one = (w: number, name: string): Box | undefined => {
    const r = v.readers(w);
    return r.length === 1 && w !== v.ir.output && (name === 'dense' ? r[0]!.kind === 'layer' && r[0]!.layer.kind === 'dense' : isOp(r[0], name))
      ? r[0]
      : undefined;
  };
  const back = one(mix.outputs[0]!, 'Transpose');
  const merge = back && perm(back) === '0,2,1,3' ? one(back.outputs[0]!, 'Reshape') : undefined;
  const out = merge ? one(merge.outputs[0]!, 'dense') : undefined;
  if (!q || !k || !val || !back || !merge || out?.kind !== 'layer' || !zeros(out.theta[1])) return undefined;
  take.push(back, merge, out);
  const x = q.x;
  const d = q.W.shape[0]!;
  const dh = d / q.heads;
  if (
    k.x !== x ||
    val.x !== x ||
    k.heads !== q.heads ||
    val.heads !== q.heads ||
    Math.abs(factor * Math.sqrt(dh) - 1) > 1e-5 ||
    out.theta[0]!.shape.join() !== `${d},${d}`
  )
    return undefined;
  if (v.ir.wires[x]!.shape.join() !== [v.ir.wires[x]!.shape[0], T, d].join()) return undefined;
  // every wire inside is read only inside
  const inside = new Set(take);
  for (const b of take) for (const w of b.outputs) if (b !== out && (w === v.ir.output || v.readers(w).some((r) => !inside.has(r)))) return undefined;
  return {
    remove: take,
    add: {
      kind: 'layer',
      layer: attention(d, q.heads, 'none', causal ? 'causal' : 'none'),
      theta: [q.W, k.W, val.W, out.theta[0]!],
      inputs: [x],
      outputs: [out.outputs[0]],
      from: sm.from,
    },
    what: 'attention',
  };
};
