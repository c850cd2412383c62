import { ShapeError, SpecError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { dimEquals, printShape } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { defineOp, word } from './op.js';
import type { Attrs, OpCtx, OpDef } from './op.js';
import { expandTo, permute } from './strided.js';

/**
 * Einsum as models write it: each operand's axes named by letters, the output's letters given;
 * letters not in the output are summed. Computed as a chain of contractions of two operands,
 * each one batched matrix product after permuting the operands to [batch, free, summed] (gemm),
 * a letter no later operand needs summed out first. The pullback is einsum again: dXᵢ is the
 * contraction of dY with the other operands onto Xᵢ's letters (broadcast along letters only Xᵢ
 * had). A letter repeated within one operand (a diagonal) is not read.
 *
 * In spec strings the equation is two attributes, `inputs(bij,bjk)` and `output(bik)` (an
 * ellipsis written `_`), since `->` is not a spec token.
 */

interface Equation {
  readonly inputs: readonly string[];
  readonly output: string;
}

/** ONNX's equation (`bij,bjk->bik`, implicit output allowed) as inputs and output, ellipses as `_`. */
export function parseEquation(eq: string): Equation {
  const clean = eq.replace(/\s+/g, '').replace(/\.\.\./g, '_');
  const [lhs, rhs] = clean.split('->') as [string, string | undefined];
  const inputs = lhs.split(',');
  if (!inputs.every((s) => /^[A-Za-z_]*$/.test(s)) || (rhs !== undefined && !/^[A-Za-z_]*$/.test(rhs)))
    throw new SpecError(`Einsum equation '${eq}': expected letters, commas, ... and ->`);
  // implicit output: the letters that appear once, in alphabetical order (after an ellipsis)
  const output =
    rhs ??
    (clean.includes('_') ? '_' : '') +
      [...new Set(inputs.join('').replace(/_/g, ''))]
        .filter((c) => inputs.join('').split(c).length === 2)
        .sort()
        .join('');
  return { inputs, output };
}

/** The letters of each operand with its ellipsis expanded to letters of its own (rank known), and the output's. */
function expand(eq: Equation, ranks: readonly number[], where: string): { ins: string[]; out: string } {
  const counts = eq.inputs.map((s, i) => {
    const explicit = s.replace('_', '').length;
    const n = ranks[i]! - explicit;
    if (s.includes('_') ? n < 0 : n !== 0) throw new ShapeError(`${where}: operand ${i} has ${ranks[i]} axes but the equation names ${explicit}`);
    return n;
  });
  const ell = Math.max(0, ...counts);
  const ins = eq.inputs.map((s, i) => s.replace('_', ellipsisLetters(counts[i]!, ell)));
  return { ins, out: eq.output.replace('_', ellipsisLetters(ell, ell)) };
}

/** Letters for n ellipsis axes, right-aligned (so operands with fewer ellipsis axes share the trailing ones). */
const ellipsisLetters = (n: number, total: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(0x100 + total - n + i)).join('');

function letterSizes(ins: readonly string[], shapes: readonly SymShape[], where: string): Map<string, Dim> {
  const size = new Map<string, Dim>();
  ins.forEach((letters, i) => {
    if (new Set(letters).size !== letters.length) throw new ShapeError(`${where}: a letter repeats within operand ${i} (a diagonal), which is not read`);
    [...letters].forEach((c, j) => {
      const d = shapes[i]![j]!;
      const had = size.get(c);
      if (had !== undefined && !dimEquals(had, d))
        throw new ShapeError(`${where}: letter ${c} is ${printShape([had])} in one operand and ${printShape([d])} in another`);
      size.set(c, d);
    });
  });
  return size;
}

const eqOf = (a: Attrs): Equation => ({ inputs: word(a, 'inputs').split(','), output: word(a, 'output') });

const einsum = defineOp(
  {
    name: 'Einsum',
    doc: 'y = Σ over the letters not in the output of the product of the operands (inputs(bij,bjk), output(bik))',
    inputs: [1, 8],
    attrs: { inputs: { kind: 'string' }, output: { kind: 'string' } },
  },
  {
    check: (a, where) => {
      if (
        !/^[A-Za-z_]*$/.test(word(a, 'output')) ||
        !word(a, 'inputs')
          .split(',')
          .every((s) => /^[A-Za-z_]*$/.test(s))
      )
        throw new SpecError(`${where}: the operands and output are written with letters (and _ for an ellipsis)`);
    },
    shapes: (ins, a, where) => {
      const eq = eqOf(a);
      if (eq.inputs.length !== ins.length) throw new ShapeError(`${where}: the equation has ${eq.inputs.length} operands but got ${ins.length} inputs`);
      const { ins: letters, out } = expand(
        eq,
        ins.map((s) => s.length),
        where,
      );
      const size = letterSizes(letters, ins, where);
      return [
        [...out].map((c) => {
          const d = size.get(c);
          if (d === undefined) throw new ShapeError(`${where}: output letter ${c} is in no operand`);
          return d;
        }),
      ];
    },
    forward: (xs, ctx, a, where) => {
      const { ins: letters, out } = expand(
        eqOf(a),
        xs.map((x) => x.rank),
        where,
      );
      const size = letterSizes(
        letters,
        xs.map((x) => x.shape),
        where,
      ) as Map<string, number>;
      const operands = xs.map((t, i) => ({ t, l: letters[i]! }));
      const y = contract(operands, out, size, ctx);
      return {
        ys: [y],
        pullback: ([dy], need) =>
          xs.map((_x, i) => {
            if (!dy || !need[i]) return undefined;
            const others = operands.filter((_, j) => j !== i);
            return contract([{ t: dy, l: out }, ...others], letters[i]!, size, ctx);
          }),
      };
    },
  },
);

interface Operand {
  readonly t: Tensor;
  readonly l: string;
}

/** The contraction of the operands onto the output letters (letters in no operand broadcast). */
export function contract(operands: readonly Operand[], out: string, size: ReadonlyMap<string, number>, ctx: OpCtx): Tensor {
  let acc = operands[0]!;
  for (let i = 1; i < operands.length; i++) {
    const later =
      out +
      operands
        .slice(i + 1)
        .map((o) => o.l)
        .join('');
    acc = contractPair(acc, operands[i]!, later, size, ctx);
  }
  // sum what the output does not name, broadcast what it names that no operand had, order as the output
  acc = sumOut(acc, [...acc.l].filter((c) => out.includes(c)).join(''), ctx);
  const missing = [...out].filter((c) => !acc.l.includes(c));
  if (missing.length) {
    const l = acc.l + missing.join('');
    const t = expandTo(
      acc.t.reshape([...acc.t.shape, ...missing.map(() => 1)]),
      [...l].map((c) => size.get(c)!),
      ctx,
    );
    acc = { t, l };
  }
  return ordered(acc, out, ctx).t;
}

/** The operand with its letters in the given order. */
function ordered(o: Operand, letters: string, ctx: OpCtx): Operand {
  if (o.l === letters) return o;
  return {
    t: permute(
      o.t,
      [...letters].map((c) => o.l.indexOf(c)),
      ctx,
    ),
    l: letters,
  };
}

/** The operand summed over the letters it has that `keep` does not (a product with a vector of ones). */
function sumOut(o: Operand, keep: string, ctx: OpCtx): Operand {
  const kept = [...o.l].filter((c) => keep.includes(c)).join('');
  if (kept.length === o.l.length) return o;
  const summed = [...o.l].filter((c) => !keep.includes(c)).join('');
  const p = ordered(o, kept + summed, ctx);
  const rows = sizeOf(p.t.shape.slice(0, kept.length)),
    n = p.t.size / Math.max(rows, 1);
  const ones = ctx.alloc([n], p.t.dtype, true);
  backend().fill(ones.data, 1);
  const t = ctx.alloc(p.t.shape.slice(0, kept.length), p.t.dtype, true);
  if (rows > 0) backend().gemm(false, false, rows, 1, n, p.t.data, ones.data, t.data, false);
  return { t, l: kept };
}

/** The contraction of two operands keeping the letters in `keep` (and the batch letters they share). */
function contractPair(a0: Operand, b0: Operand, keep: string, size: ReadonlyMap<string, number>, ctx: OpCtx): Operand {
  const a = sumOut(a0, keep + b0.l, ctx),
    b = sumOut(b0, keep + a.l, ctx);
  const shared = [...a.l].filter((c) => b.l.includes(c));
  const batch = shared.filter((c) => keep.includes(c)).join(''),
    summed = shared.filter((c) => !keep.includes(c)).join('');
  const freeA = [...a.l].filter((c) => !b.l.includes(c)).join(''),
    freeB = [...b.l].filter((c) => !a.l.includes(c)).join('');
  const A = ordered(a, batch + freeA + summed, ctx).t,
    B = ordered(b, batch + summed + freeB, ctx).t;
  const n = (s: string): number => sizeOf([...s].map((c) => size.get(c)!) as Shape);
  const nb = n(batch),
    m = n(freeA),
    k = n(summed),
    q = n(freeB);
  const l = batch + freeA + freeB;
  const y = ctx.alloc(
    [...l].map((c) => size.get(c)!),
    A.dtype === 'float64' || B.dtype === 'float64' ? 'float64' : 'float32',
    true,
  );
  const be = backend();
  for (let i = 0; i < nb; i++) be.gemm(false, false, m, q, k, A.data.subarray(i * m * k), B.data.subarray(i * k * q), y.data.subarray(i * m * q), false);
  return { t: y, l };
}

export const EINSUM_OPS: readonly OpDef[] = [einsum];
