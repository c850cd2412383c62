import { isBatch } from '../../ops/dim.js';
import type { BatchDim } from '../../ops/dim.js';
import { makeCtx } from '../../para/para.js';
import type { Op } from '../../ops/op.js';
import { Tensor } from '../../tensor/tensor.js';
import { elems, knownOf } from './known.js';
import type { Elem, Known } from './known.js';
import type { ElemType } from './schema.js';

/**
 * Folding a node whose inputs are known but hold multiples of the batch B (the shape
 * arithmetic of `x.view(x.size(0), -1)`: Shape, Gather, Unsqueeze, Concat …). Operators that
 * only move entries (Gather, Concat, Slice, Unsqueeze, Reshape, Transpose, Expand …) are run on
 * the entries' indices, which says where each output entry comes from; the arithmetic is done
 * on the entries, B kept symbolic (B·k ± B·k′, B·k·c, B·k/c; B ≥ 1 decides comparisons with
 * numbers below 1). What B leaves open (B = 3?) is refused: undefined is returned.
 */

const MOVES = new Set(['Identity', 'Cast', 'Unsqueeze', 'Squeeze', 'Reshape', 'Flatten', 'Concat', 'Gather', 'Slice', 'Transpose', 'Expand', 'Tile', 'Split']);

type Bin = (a: Elem, b: Elem) => Elem | undefined;
const k = (e: Elem): number => (isBatch(e) ? e.k : 0);
const c = (e: Elem): number => (isBatch(e) ? 0 : e);
const B = (f: number): Elem => (f === 0 ? 0 : ({ k: f } as BatchDim));

const ARITH: Record<string, Bin> = {
  Add: (a, b) => (isBatch(a) && isBatch(b) ? B(a.k + b.k) : isBatch(a) || isBatch(b) ? (c(a) + c(b) === 0 ? B(k(a) + k(b)) : undefined) : a + b),
  Sub: (a, b) => (isBatch(a) && isBatch(b) ? B(a.k - b.k) : isBatch(a) && b === 0 ? a : isBatch(a) || isBatch(b) ? undefined : a - b),
  Mul: (a, b) => (isBatch(a) && isBatch(b) ? undefined : isBatch(a) ? B(a.k * (b as number)) : isBatch(b) ? B(b.k * a) : a * b),
  Div: (a, b) => (isBatch(b) ? (isBatch(a) ? a.k / b.k : undefined) : isBatch(a) ? B(a.k / b) : a / b),
  Equal: (a, b) => {
    if (isBatch(a) && isBatch(b)) return a.k === b.k ? 1 : undefined;
    const [s, n] = isBatch(a) ? [a, b as number] : isBatch(b) ? [b, a] : [undefined, 0];
    if (!s) return a === b ? 1 : 0;
    // k·B with B ≥ 1 a whole number is never below k nor off the multiples of k
    return n < s.k || !Number.isInteger(n / s.k) ? 0 : undefined;
  },
};

/** The known outputs of `op` on known inputs with batch entries, or undefined when B leaves them open. */
export function foldSymbolic(op: Op, name: string, inputs: readonly Known[], types: readonly ElemType[], outNames: readonly string[]): Known[] | undefined {
  const opName = op.def.name;
  if (opName === 'Cast' && op.attrs.to === 'bool') return undefined;
  if (MOVES.has(opName)) {
    // run the operator on entry indices (the first input's; Gather's indices stay the indices given)
    const all = inputs.flatMap((x, i) => (opName === 'Gather' && i === 1 ? [] : elems(x)));
    let offset = 0;
    const tensors = inputs.map((x, i) => {
      if (opName === 'Gather' && i === 1) {
        if (x.batch?.some((b) => b)) return undefined;
        return new Tensor(Float64Array.from(x.data), x.dims);
      }
      const t = new Tensor(
        Float64Array.from({ length: x.data.length }, (_, j) => offset + j),
        x.dims,
      );
      offset += x.data.length;
      return t;
    });
    if (tensors.some((t) => !t)) return undefined;
    const ys = op.forward(tensors as Tensor[], { ...makeCtx(), batch: 1 }).ys;
    return ys.map((y, j) =>
      knownOf(
        Array.from(y.data, (idx) => all[idx]!),
        y.shape,
        types[j] ?? types[0]!,
        outNames[j] ?? name,
      ),
    );
  }
  const f = ARITH[opName];
  if (f && inputs.length === 2) {
    const [a, b] = inputs as [Known, Known];
    const ea = elems(a),
      eb = elems(b);
    const n = Math.max(ea.length, eb.length);
    if (!(ea.length === n || ea.length === 1) || !(eb.length === n || eb.length === 1)) return undefined;
    const out: Elem[] = [];
    for (let i = 0; i < n; i++) {
      const v = f(ea[ea.length === 1 ? 0 : i]!, eb[eb.length === 1 ? 0 : i]!);
      if (v === undefined) return undefined;
      out.push(v);
    }
    return [knownOf(out, a.data.length >= b.data.length ? a.dims : b.dims, types[0]!, outNames[0] ?? name)];
  }
  if (opName === 'Where' && inputs.length === 3) {
    const [cond, a, b] = inputs as [Known, Known, Known];
    if (cond.batch?.some((x) => x)) return undefined;
    const ea = elems(a),
      eb = elems(b);
    const n = Math.max(cond.data.length, ea.length, eb.length);
    const at = (e: readonly Elem[] | Float32Array | Float64Array, i: number): Elem => e[e.length === 1 ? 0 : i]!;
    const out = Array.from({ length: n }, (_, i) => (at(cond.data, i) !== 0 ? at(ea, i) : at(eb, i)));
    const dims = [cond, a, b].reduce((d, x) => (x.data.length > d.length ? [...x.dims] : d), [] as number[]);
    return [knownOf(out, dims, types[0]!, outNames[0] ?? name)];
  }
  if (opName === 'Neg' && inputs.length === 1)
    return [
      knownOf(
        elems(inputs[0]!).map((e) => (isBatch(e) ? B(-e.k) : -e)),
        inputs[0]!.dims,
        types[0]!,
        outNames[0] ?? name,
      ),
    ];
  return undefined;
}
