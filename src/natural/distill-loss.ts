import { RangeArgError, ShapeError } from '../errors.js';
import type { Loss } from '../nn/loss.js';
import { softmaxRows } from '../nn/softmax.js';
import { freshAlloc } from '../tensor/memory.js';
import { Tensor, shapeString } from '../tensor/tensor.js';

/**
 * Knowledge distillation as a loss lens (Hinton, Vinyals & Dean 2015, §2):
 *
 *   L(s; y, t) = α·T²·KL(softmax(t/T) ‖ softmax(s/T)) + (1 − α)·CE(y, softmax(s)),
 *
 * mean over the batch, for student logits s [B,C]. The target is [B, 2C]: the label
 * distribution y (one-hot or soft) in the first C columns, the teacher's logits t in the
 * last C (build it with `distillationTarget`). The T² keeps the soft term's gradient
 * on the scale of the hard term's as T changes. Pullback:
 *   ∂L/∂s = α·T·(softmax(s/T) − softmax(t/T)) + (1 − α)·(softmax(s)·Σy − y), over B.
 */
export function distillationLoss(temperature: number, alpha: number): Loss {
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new RangeArgError(`distillation: the temperature must be > 0, got ${temperature}`);
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeArgError(`distillation: alpha must be in [0, 1], got ${alpha}`);
  const T = temperature;
  return {
    name: `distillation(T=${T},alpha=${alpha})`,
    link: 'softmax',
    apply(s, target, ctx = { alloc: freshAlloc }) {
      const B = s.batch,
        C = s.size / B;
      if (target.batch !== B || target.size !== 2 * B * C) {
        throw new ShapeError(
          `distillation loss: student logits ${shapeString(s.shape)} need a target [${B},${2 * C}] (labels and teacher logits side by side) but got ${shapeString(target.shape)}`,
        );
      }
      const sT = new Float64Array(B * C),
        tT = new Float64Array(B * C);
      for (let b = 0; b < B; b++) {
        for (let j = 0; j < C; j++) {
          sT[b * C + j] = s.data[b * C + j]! / T;
          tT[b * C + j] = target.data[b * 2 * C + C + j]! / T;
        }
      }
      const pS = new Float64Array(B * C),
        pT = new Float64Array(B * C),
        p1 = new Float64Array(B * C);
      const lseS = new Float64Array(B),
        lseT = new Float64Array(B),
        lse1 = new Float64Array(B);
      softmaxRows(sT, B, C, pS, lseS);
      softmaxRows(tT, B, C, pT, lseT);
      softmaxRows(s.data, B, C, p1, lse1);
      let kl = 0,
        ce = 0;
      for (let b = 0; b < B; b++) {
        const o = b * C;
        const ls = lseS[b]!,
          lt = lseT[b]!,
          l1 = lse1[b]!;
        for (let j = 0; j < C; j++) {
          const pt = pT[o + j]!;
          if (pt > 0) kl += pt * (tT[o + j]! - lt - (sT[o + j]! - ls));
          const y = target.data[b * 2 * C + j]!;
          if (y !== 0) ce -= y * (s.data[o + j]! - l1);
        }
      }
      return {
        value: (alpha * T * T * kl + (1 - alpha) * ce) / B,
        pullback(scale = 1) {
          const g = ctx.alloc(s.shape, s.dtype);
          for (let b = 0; b < B; b++) {
            let ysum = 0;
            for (let j = 0; j < C; j++) ysum += target.data[b * 2 * C + j]!;
            for (let j = 0; j < C; j++) {
              const i = b * C + j;
              const soft = alpha * T * (pS[i]! - pT[i]!);
              const hard = (1 - alpha) * (p1[i]! * ysum - target.data[b * 2 * C + j]!);
              g.data[i] = (scale * (soft + hard)) / B;
            }
          }
          return g;
        },
      };
    },
  };
}

/** The distillation target [B, 2C]: labels y [B,C] and teacher logits t [B,C] side by side. */
export function distillationTarget(y: Tensor, teacherLogits: Tensor): Tensor {
  const B = y.batch,
    C = y.size / B;
  if (teacherLogits.batch !== B || teacherLogits.size !== B * C) {
    throw new ShapeError(
      `distillation: the teacher outputs ${shapeString(teacherLogits.shape)} but the labels are ${shapeString(y.shape)}; teacher and student must have the same number of outputs`,
    );
  }
  const out = Tensor.zeros([B, 2 * C], 'float64');
  for (let b = 0; b < B; b++) {
    for (let j = 0; j < C; j++) {
      out.data[b * 2 * C + j] = y.data[b * C + j]!;
      out.data[b * 2 * C + C + j] = teacherLogits.data[b * C + j]!;
    }
  }
  return out;
}
