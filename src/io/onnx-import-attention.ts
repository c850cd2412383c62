import { attention } from '../nn/attention.js';
import type { Shape } from '../tensor/tensor.js';
import { ImportError } from './errors.js';
import type { OnnxConst, OnnxNode } from './onnx-decode.js';
import { transpose } from './onnx-import-rules.js';
import type { ImportStep } from './onnx-import-rules.js';

/**
 * The attention pattern: the subgraph torch.onnx.export writes for multi-head self-attention
 * on [T, d] (as in the model.py of `paralens export --format pytorch`, or written by hand):
 *
 *   x ─ MatMul(Wqᵀ) ─ Reshape[b,t,h,dh] ─ Transpose(0,2,1,3) ──────────┐
 *   x ─ MatMul(Wkᵀ) ─ Reshape[b,t,h,dh] ─ Transpose(0,2,3,1) ─ MatMul(q, kᵀ) ─ Div(√dh) ─ [Where(causal mask)] ─ Softmax(-1) ─┐
 *   x ─ MatMul(Wvᵀ) ─ Reshape[b,t,h,dh] ─ Transpose(0,2,1,3) ────────────────────────────────────────────────────────── MatMul(a, v)
 *     ─ Transpose(0,2,1,3) ─ Reshape[b,t,d] ─ MatMul(Woᵀ)
 *
 * read as attention(d, heads, none[, none]) with its four projections; the mask is causal when
 * the scores pass a Where whose condition is an upper-triangular Trilu. Anything else at a value
 * read three times is refused, naming the node where the pattern breaks.
 */
export interface GraphView {
  readersOf(v: string): OnnxNode[];
  constant(name: string): OnnxConst | undefined;
  producer(v: string): OnnxNode | undefined;
}

const perm = (n: OnnxNode): string => {
  const p = n.attrs.get('perm');
  return Array.isArray(p) ? p.join(',') : '';
};

export function attentionPattern(g: GraphView, x: string, shape: Shape, readers: readonly OnnxNode[]): ImportStep {
  const fail = (n: OnnxNode | undefined, why: string): ImportError =>
    new ImportError(
      `the value '${x}' is read by ${readers.length} nodes (${readers.map((r) => r.name).join(', ')}), which is read only as self-attention, but ${n ? `node '${n.name}' (${n.op})` : 'the graph'} breaks the pattern: ${why}`,
    );
  if (shape.length !== 2) throw fail(undefined, `attention takes sequences [T, d], the input is [*,${shape.join(',')}]`);
  const d = shape[1]!;
  /** The one node reading v, of op type `op`. */
  const next = (v: string, op: string): OnnxNode => {
    const r = g.readersOf(v);
    if (r.length !== 1 || r[0]!.op !== op) throw fail(r[0], `expected one ${op} to read '${v}'`);
    return r[0]!;
  };
  /** Each projection: MatMul with a constant [d, d] (Wᵀ), then Reshape to heads and Transpose. */
  const branches = readers.map((mm) => {
    if (mm.op !== 'MatMul') throw fail(mm, 'expected the three projections as MatMul');
    const w = g.constant(mm.inputs[1] ?? '')?.tensor;
    if (!w || w.shape.join() !== `${d},${d}`) throw fail(mm, `expected a constant [${d},${d}] projection`);
    const rs = next(mm.outputs[0]!, 'Reshape');
    const target = g.constant(rs.inputs[1] ?? '')?.ints;
    if (!target || target.length !== 4 || target[3]! * target[2]! !== d) throw fail(rs, `expected a reshape to [batch, T, heads, d/heads]`);
    const tr = next(rs.outputs[0]!, 'Transpose');
    return { w, heads: target[2]!, tr, p: perm(tr) };
  });
  const heads = branches[0]!.heads;
  const q = branches.find((b) => b.p === '0,2,1,3' && g.readersOf(b.tr.outputs[0]!)[0]?.inputs[0] === b.tr.outputs[0]);
  const k = branches.find((b) => b.p === '0,2,3,1');
  const scores = q && g.readersOf(q.tr.outputs[0]!)[0];
  const v = branches.find((b) => b !== q && b.p === '0,2,1,3');
  if (!q || !k || !v || !scores || scores.op !== 'MatMul' || scores.inputs[1] !== k.tr.outputs[0])
    throw fail(scores, 'expected scores MatMul(q, kᵀ) of the projections transposed to heads');
  if (branches.some((b) => b.heads !== heads)) throw fail(undefined, 'the projections split into different numbers of heads');
  // the scaling by 1/√dh
  let at = next(scores.outputs[0]!, 'Div');
  const divisor = g.constant(at.inputs[1] ?? '')?.tensor?.data[0] ?? g.constant(at.inputs[1] ?? '')?.ints?.[0];
  if (divisor === undefined || Math.abs(divisor - Math.sqrt(d / heads)) > 1e-5 * Math.sqrt(d / heads))
    throw fail(at, `expected the scores divided by √(d/heads) = ${Math.sqrt(d / heads)}, got ${divisor}`);
  // the causal mask: Where(upper triangle, −∞, scores)
  let causal = false;
  const r = g.readersOf(at.outputs[0]!);
  if (r.length === 1 && r[0]!.op === 'Where') {
    const where = r[0]!;
    let cond = g.producer(where.inputs[0] ?? '');
    if (cond?.op === 'Cast') cond = g.producer(cond.inputs[0] ?? '');
    if (!cond || cond.op !== 'Trilu' || cond.attrs.get('upper') !== 1 || where.inputs[2] !== at.outputs[0])
      throw fail(where, 'expected Where(Trilu(upper=1) mask, −∞, scores), the causal mask');
    causal = true;
    at = where;
  }
  const soft = next(at.outputs[0]!, 'Softmax');
  const axis = soft.attrs.get('axis');
  if (axis !== undefined && axis !== -1 && axis !== 3) throw fail(soft, `softmax over axis ${String(axis)}, not the keys`);
  const mix = next(soft.outputs[0]!, 'MatMul');
  if (mix.inputs[1] !== v.tr.outputs[0]) throw fail(mix, 'expected MatMul(attention weights, values)');
  const back = next(mix.outputs[0]!, 'Transpose');
  if (perm(back) !== '0,2,1,3') throw fail(back, 'expected the heads transposed back (0,2,1,3)');
  const merge = next(back.outputs[0]!, 'Reshape');
  const out = next(merge.outputs[0]!, 'MatMul');
  const wo = g.constant(out.inputs[1] ?? '')?.tensor;
  if (!wo || wo.shape.join() !== `${d},${d}`) throw fail(out, `expected a constant [${d},${d}] output projection`);
  return {
    built: [{ m: attention(d, heads, 'none', causal ? 'causal' : 'none'), theta: [transpose(q.w), transpose(k.w), transpose(v.w), transpose(wo)] }],
    out: out.outputs[0]!,
  };
}
