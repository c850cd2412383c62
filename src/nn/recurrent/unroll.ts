import { RangeArgError, ShapeError } from '../../errors.js';
import { par, primitive, seqOf, splitRows, joinRows } from '../../para/composite.js';
import { tie } from '../../para/param-maps.js';
import type { Para } from '../../para/para.js';
import { id } from '../../para/structure.js';

/**
 * The braiding σ: A ⊗ B → B ⊗ A of the symmetric monoidal structure (here: the first a features
 * and the next b change places). Its pullback is σ⁻¹ = σ: B ⊗ A → A ⊗ B.
 */
export function swap(a: number, b: number): Para {
  if (!(Number.isInteger(a) && a >= 0 && Number.isInteger(b) && b >= 0)) throw new RangeArgError(`swap(a,b) needs sizes ≥ 0, got swap(${a},${b})`);
  return primitive({
    kind: 'swap',
    args: [a, b],
    dom: [a + b],
    cod: [b + a],
    forward: (_t, x, ctx) => {
      const [p, q] = splitRows(x, [a, b], [[a], [b]], ctx);
      return {
        y: joinRows([q!, p!], x.batch, ctx),
        pullback: (dy) => {
          const [dq, dp] = splitRows(dy, [b, a], [[b], [a]], ctx);
          return joinRows([dp!, dq!], dy.batch, ctx);
        },
      };
    },
  });
}

/**
 * stop(n): the identity on n features whose pullback is zero — the stop-gradient that truncated
 * backpropagation through time places on the state wire every K steps (`--bptt K`). It is a lens
 * but not a Para morphism's honest derivative: it says the gradient is not wanted past here.
 */
export function stop(n: number): Para {
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeArgError(`stop(n) needs a size ≥ 0, got stop(${n})`);
  return primitive({
    kind: 'stop',
    args: [n],
    dom: [n],
    cod: [n],
    forward: (_t, x, ctx) => ({ y: x, pullback: () => ctx.alloc(x.shape, x.dtype) }),
  });
}

/** id(n), or nothing for n = 0 (a factor of size 0 only adds copies). */
const idOr = (n: number): Para[] => (n > 0 ? [id(n)] : []);

/**
 * The unrolling of a cell f: S ⊗ A → S ⊗ B over T steps as a composite of Para, the definition
 * that every cell's `run` computes:
 *
 *   S ⊗ A^T → B^T ⊗ S:   step t = id(t·B) ⊗ (f ; σ_{S,B}) ⊗ id((T−t−1)·A)
 *
 * composed for t = 0 … T−1 (the state wire threads the copies of f; each output is braided past
 * the state to join those before it), every copy of f reading the same parameters through
 * tie (src/para/param-maps.ts), whose pullback sums the copies' gradients. So backpropagation
 * through time is the pullback of this composite and nothing else; with `bptt` = K a stop(S)
 * sits on the state wire before every step t that is a positive multiple of K.
 */
export function unrolled(f: Para, S: number, T: number, bptt?: number): Para {
  if (!f.dom || !f.cod || f.dom.length !== 1 || f.cod.length !== 1) throw new ShapeError(`unroll: the cell ${f} must map vectors [S+A] to vectors [S+B]`);
  const A = f.dom[0]! - S,
    B = f.cod[0]! - S;
  if (!(Number.isInteger(S) && S >= 0 && A >= 0 && B >= 0))
    throw new ShapeError(`unroll: ${f} maps [${f.dom[0]}] to [${f.cod[0]}], which cannot be a state of ${S} and an input and an output`);
  if (!(Number.isInteger(T) && T >= 1)) throw new RangeArgError(`unroll: the number of steps must be a positive integer, got ${T}`);
  if (bptt !== undefined && !(Number.isInteger(bptt) && bptt >= 1)) throw new RangeArgError(`unroll: the truncation must be a positive integer, got ${bptt}`);
  const parts: Para[] = [];
  for (let t = 0; t < T; t++) {
    if (bptt !== undefined && t > 0 && t % bptt === 0) parts.push(par(...idOr(t * B), stop(S), ...idOr((T - t) * A)));
    parts.push(par(...idOr(t * B), f, ...idOr((T - t - 1) * A)));
    parts.push(par(...idOr(t * B), swap(S, B), ...idOr((T - t - 1) * A)));
  }
  const body = seqOf(parts);
  const P = f.params.length;
  if (P === 0) return body;
  return tie(
    body,
    Array.from({ length: P }, (_, j) => Array.from({ length: T }, (_, t) => t * P + j)),
  );
}
