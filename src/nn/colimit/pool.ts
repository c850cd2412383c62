import { ShapeError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput, describeShape } from '../../para/para.js';
import type { Ctx, Lens, Para } from '../../para/para.js';
import type { Shape, Tensor } from '../../tensor/tensor.js';

/**
 * Pooling over a set axis as morphisms of Para (seed 000, §Colimits and invariance).
 *
 * A set of n elements with d features is a per-sample tensor [n, d]. Sum pooling
 * Σᵢ xᵢ is the map out of the coproduct ∐ᵢ ℝᵈ induced by the identity on each summand
 * (the codiagonal ∇: ℝᵈ ⊕ … ⊕ ℝᵈ → ℝᵈ), and it factors through the quotient by the
 * symmetric group Sₙ — the colimit of the diagram of permutations — which is why it is
 * permutation-invariant. Mean and max are the same construction with another
 * commutative, associative reduction.
 *
 * Masked sets (sets of different sizes in one batch) are per-sample tensors [n, d+1]:
 * n slots, d features, and a last *mask column* that is 1 for an element that is present
 * and 0 for a padding slot (a value > 0.5 counts as present). The mask is data, not a
 * parameter: its pullback is 0 (the pooled value is locally constant in it). An empty set
 * pools to the zero vector for every reduction, never to NaN.
 */
export type Reduction = 'sum' | 'mean' | 'max';

/** Whether slot i of sample b is an element of the set (always, for unmasked sets). */
function present(x: Tensor, b: number, i: number, n: number, width: number, masked: boolean): boolean {
  return !masked || x.data[(b * n + i) * width + width - 1]! > 0.5;
}

function poolForward(op: Reduction, masked: boolean, self: Para, x: Tensor, ctx: Pick<Ctx, 'alloc'>): Lens {
  checkInput(self, x);
  if (x.rank !== 3) throw new ShapeError(`${self} expects sets [*,n,d] but got rank ${x.rank - 1} samples`);
  const B = x.batch,
    n = x.shape[1]!,
    width = x.shape[2]!;
  const d = masked ? width - 1 : width;
  const y = ctx.alloc([B, d], x.dtype);
  const count = new Float64Array(B);
  // arg-max sets for max: for sample b, feature j, the tied slots share the gradient equally
  const ties: Int32Array[] = [];
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < n; i++) if (present(x, b, i, n, width, masked)) count[b]!++;
    const yo = b * d;
    if (op === 'max') {
      for (let j = 0; j < d; j++) {
        let best = -Infinity;
        for (let i = 0; i < n; i++) {
          if (!present(x, b, i, n, width, masked)) continue;
          const v = x.data[(b * n + i) * width + j]!;
          if (v > best) best = v;
        }
        y.data[yo + j] = count[b] ? best : 0;
        const tied: number[] = [];
        if (count[b]) for (let i = 0; i < n; i++) if (present(x, b, i, n, width, masked) && x.data[(b * n + i) * width + j] === best) tied.push(i);
        ties.push(Int32Array.from(tied));
      }
      continue;
    }
    const sum = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      if (!present(x, b, i, n, width, masked)) continue;
      const xo = (b * n + i) * width;
      for (let j = 0; j < d; j++) sum[j]! += x.data[xo + j]!;
    }
    const div = op === 'mean' ? Math.max(count[b]!, 1) : 1;
    for (let j = 0; j < d; j++) y.data[yo + j] = sum[j]! / div;
  }
  return {
    y,
    pullback: (dy) => {
      const dx = ctx.alloc(x.shape, x.dtype);
      for (let b = 0; b < B; b++) {
        const yo = b * d;
        if (op === 'max') {
          for (let j = 0; j < d; j++) {
            const t = ties[b * d + j]!;
            for (const i of t) dx.data[(b * n + i) * width + j]! += dy.data[yo + j]! / t.length;
          }
          continue;
        }
        const w = op === 'mean' ? 1 / Math.max(count[b]!, 1) : 1;
        for (let i = 0; i < n; i++) {
          if (!present(x, b, i, n, width, masked)) continue;
          const xo = (b * n + i) * width;
          for (let j = 0; j < d; j++) dx.data[xo + j] = w * dy.data[yo + j]!;
        }
      }
      return dx;
    },
  };
}

const KIND = (op: Reduction, masked: boolean): string => `${masked ? 'masked_' : ''}${op}_pool`;

/**
 * The pooling morphism [n, d] → [d] (or [n, d+1] → [d] when masked) for a reduction.
 * Takes any set shape until composed. Pullbacks: sum broadcasts dy to every present
 * element; mean broadcasts dy/|set|; max routes dy to the arg-max, split equally among
 * exact ties (deterministic and itself permutation-invariant).
 */
export function pool(op: Reduction, masked = false, dom?: Shape): Para {
  const kind = KIND(op, masked);
  if (dom && (dom.length !== 2 || (masked && dom[1]! < 1))) {
    throw new ShapeError(`${kind} expects sets ${masked ? '[*,n,d+1] (features and a mask column)' : '[*,n,d]'} but got ${describeShape(dom)}`);
  }
  const self: Para = primitive({
    kind,
    dom,
    cod: dom && [masked ? dom[1]! - 1 : dom[1]!],
    at: (d) => pool(op, masked, d),
    forward: (_t, x, ctx) => poolForward(op, masked, self, x, ctx),
  });
  return self;
}

/** Σᵢ xᵢ, the coproduct-induced map (codiagonal) [n,d] → [d]. */
export const sumPool = (dom?: Shape): Para => pool('sum', false, dom);
/** (1/n) Σᵢ xᵢ. */
export const meanPool = (dom?: Shape): Para => pool('mean', false, dom);
/** maxᵢ xᵢ per feature. */
export const maxPool = (dom?: Shape): Para => pool('max', false, dom);
/** Σ over present elements, [n,d+1] → [d]. */
export const maskedSumPool = (dom?: Shape): Para => pool('sum', true, dom);
/** Mean over present elements (0 for an empty set), [n,d+1] → [d]. */
export const maskedMeanPool = (dom?: Shape): Para => pool('mean', true, dom);
/** Max over present elements (0 for an empty set), [n,d+1] → [d]. */
export const maskedMaxPool = (dom?: Shape): Para => pool('max', true, dom);
