import type { Dataset } from '../data/dataset.js';
import { byName, ShapeError } from '../errors.js';
import { freshAlloc } from '../tensor/memory.js';
import type { Ctx } from '../para/para.js';
import type { LossKind } from '../tensor/backend.js';
import { bceTerm, sigmoidOf } from '../tensor/rows.js';
import { applyUnary } from '../tensor/js-backend.js';
import { backend } from '../tensor/registry.js';
import { Tensor, shapeString } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { checkTokenIds } from './embedding.js';
import type { Link } from './link.js';
import { logSumExpRows, softmaxRows } from './softmax.js';

/**
 * A loss as a lens with no parameters: forward gives the scalar L(ŷ, t) (a mean over the
 * batch), the pullback of dL = scale gives dŷ.
 */
export interface Loss {
  readonly name: string;
  /** The output link under which the loss is a likelihood: what it reads its predictions through (bce and softmax cross-entropy take logits). */
  readonly link: Link;
  /** Its kernel (Backend.lossGrad), by which it runs on a device; absent for a loss computed only on the host. */
  readonly kernel?: LossKind;
  /** The per-sample target shape for predictions of shape `cod`, when it is not cod itself (token ids: cod without its last axis). */
  readonly targetShape?: (cod: Shape) => Shape;
  apply(yhat: Tensor, target: Tensor, ctx?: Pick<Ctx, 'alloc'>): { value: number; pullback(scale?: number): Tensor };
}

function checkSame(name: string, yhat: Tensor, target: Tensor): void {
  if (yhat.size !== target.size || yhat.batch !== target.batch) {
    throw new ShapeError(`${name} expects targets shaped like the predictions ${shapeString(yhat.shape)} but got ${shapeString(target.shape)}`);
  }
}

/** Mean squared error over all elements (PyTorch's MSELoss). */
export const mse: Loss = {
  name: 'mse',
  link: 'identity',
  kernel: 'mse',
  apply(yhat, target, ctx = { alloc: freshAlloc }) {
    checkSame('mse', yhat, target);
    const n = yhat.size;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const d = yhat.data[i]! - target.data[i]!;
      s += d * d;
    }
    return {
      value: s / n,
      pullback(scale = 1) {
        const g = ctx.alloc(yhat.shape, yhat.dtype);
        const c = (2 * scale) / n;
        for (let i = 0; i < n; i++) g.data[i] = c * (yhat.data[i]! - target.data[i]!);
        return g;
      },
    };
  },
};

/** Binary cross-entropy on logits z, mean over elements: max(z,0) − z·t + log(1 + e^−|z|) (stable for any z). */
export const bce: Loss = {
  name: 'bce',
  link: 'sigmoid',
  kernel: 'bce',
  apply(z, target, ctx = { alloc: freshAlloc }) {
    checkSame('bce', z, target);
    const n = z.size;
    let s = 0;
    for (let i = 0; i < n; i++) {
      s += bceTerm(z.data[i]!, target.data[i]!);
    }
    return {
      value: s / n,
      pullback(scale = 1) {
        const g = ctx.alloc(z.shape, z.dtype);
        for (let i = 0; i < n; i++) {
          g.data[i] = (scale * (sigmoidOf(z.data[i]!) - target.data[i]!)) / n;
        }
        return g;
      },
    };
  },
};

/**
 * Softmax cross-entropy on logits [B, C] against target distributions [B, C] (one-hot
 * labels or soft targets): mean over the batch of −Σ_c t_c·log softmax(z)_c, by log-sum-exp.
 */
export const softmaxCrossEntropy: Loss = {
  name: 'softmax-cross-entropy',
  link: 'softmax',
  kernel: 'softmax-cross-entropy',
  apply(z, target, ctx = { alloc: freshAlloc }) {
    checkSame('softmax-cross-entropy', z, target);
    const B = z.batch,
      C = z.size / B;
    const p = ctx.alloc(z.shape, z.dtype);
    const lse = new Float64Array(B);
    softmaxRows(z.data, B, C, p.data, lse);
    let s = 0;
    for (let b = 0; b < B; b++) {
      const o = b * C;
      for (let j = 0; j < C; j++) {
        const t = target.data[o + j]!;
        if (t !== 0) s -= t * (z.data[o + j]! - lse[b]!);
      }
    }
    return {
      value: s / B,
      pullback(scale = 1) {
        const g = ctx.alloc(z.shape, z.dtype);
        for (let b = 0; b < B; b++) {
          const o = b * C;
          let tsum = 0;
          for (let j = 0; j < C; j++) tsum += target.data[o + j]!;
          for (let j = 0; j < C; j++) g.data[o + j] = (scale * (p.data[o + j]! * tsum - target.data[o + j]!)) / B;
        }
        return g;
      },
    };
  },
};

/**
 * Softmax cross-entropy over the last axis against token ids (PyTorch's CrossEntropyLoss on
 * [N, V] logits and [N] class indices): logits z [B, …, V] and targets [B, …] holding ids,
 * L = mean over the B·… positions of log Σ_c e^{z_c} − z_target, in nats (÷ ln 2 for bits).
 * Pullback: dz = (softmax(z) − onehot(target))/positions.
 */
export const tokenCrossEntropy: Loss = {
  name: 'token-cross-entropy',
  // softmax over the last axis (each position's logits)
  link: 'softmax',
  kernel: 'token-cross-entropy',
  targetShape: (cod: Shape) => cod.slice(0, -1),
  apply(z, target, ctx = { alloc: freshAlloc }) {
    const V = z.shape[z.rank - 1]!,
      rows = z.size / V;
    if (target.size !== rows || target.batch !== z.batch) {
      throw new ShapeError(
        `token-cross-entropy expects one target id per position of the logits ${shapeString(z.shape)} (${shapeString(z.shape.slice(0, -1))}) but got ${shapeString(target.shape)}`,
      );
    }
    checkTokenIds('token-cross-entropy targets', target.data, V);
    // p = softmax(z) per position, by the backend's kernel; −log p[target] from it, or, where
    // p[target] underflowed to 0, by log-sum-exp from z itself
    const p = ctx.alloc(z.shape, z.dtype, true);
    p.data.set(z.data);
    backend().attentionSoftmax(p.data, 1, rows, V, 1, false, 0);
    const lse = [0];
    let s = 0;
    for (let r = 0; r < rows; r++) {
      const pt = p.data[r * V + target.data[r]!]!;
      if (pt > 0) s -= Math.log(pt);
      else {
        logSumExpRows(z.data.subarray(r * V, (r + 1) * V), 1, V, lse);
        s += lse[0]! - z.data[r * V + target.data[r]!]!;
      }
    }
    return {
      value: s / rows,
      pullback(scale = 1) {
        const g = ctx.alloc(z.shape, z.dtype, true);
        const c = scale / rows;
        for (let i = 0; i < z.size; i++) g.data[i] = p.data[i]! * c;
        for (let r = 0; r < rows; r++) g.data[r * V + target.data[r]!]! -= c;
        return g;
      },
    };
  },
};

const losses: Record<string, Loss> = { mse, bce, 'softmax-cross-entropy': softmaxCrossEntropy, 'token-cross-entropy': tokenCrossEntropy };

export function lossNames(): string[] {
  return Object.keys(losses);
}

/** A loss by its CLI name; unknown names throw, listing the known ones. */
export function lossByName(name: string): Loss {
  return byName('loss', losses, name);
}

/**
 * The loss that suits a data set's targets: bce (on a logit) for one labelled output,
 * softmax-cross-entropy (on logits) for several, mse when there are no labels (regression).
 */
export function lossForData(data: Dataset): Loss {
  if (!data.labels) return mse;
  return data.y.size / data.y.batch === 1 ? bce : softmaxCrossEntropy;
}
