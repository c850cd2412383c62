import { RangeArgError, ShapeError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import { predict } from '../../train/trainer.js';

/**
 * A characteristic morphism χ: X → Ω with Ω = [0,1]: a truth value for every input row.
 * Seed 000, the topos section: "the continuous output of a sigmoid is the characteristic
 * morphism χ: X → Ω"; a subobject S ⊆ X is classified by χ_S with S = χ_S⁻¹(⊤).
 */
export type Characteristic = (x: Tensor) => Float64Array;

/**
 * The characteristic morphism of a trained binary classifier whose last layer is a sigmoid:
 * x ↦ the model's output in [0,1]. Throws a ShapeError unless the model has one output per
 * input, and a RangeArgError naming the row when an output is not a truth value (a model that
 * ends in logits, not a sigmoid, is not a map into Ω).
 */
export function characteristicMorphism(model: Para, theta: readonly Tensor[]): Characteristic {
  return (x: Tensor): Float64Array => {
    const y = predict(model, theta, x);
    const per = y.size / Math.max(1, y.batch);
    if (y.batch > 0 && per !== 1) {
      throw new ShapeError(`a characteristic morphism χ: X → Ω has one truth value per input, but ${model} outputs ${per} values per row`);
    }
    const truth = Float64Array.from(y.data);
    truth.forEach((v, i) => {
      if (!(v >= 0 && v <= 1))
        throw new RangeArgError(`${model} gives ${v} at row ${i + 1}, outside Ω = [0, 1]; end the model with sigmoid to make it a characteristic morphism`);
    });
    return truth;
  };
}

/** A subobject S ⊆ X given by the rows of X where χ reaches the threshold. */
export interface Subobject {
  readonly threshold: number;
  /** χ(x) for every row. */
  readonly truth: Float64Array;
  /** Rows in S (χ(x) ≥ threshold), ascending. */
  readonly members: number[];
  /** 1 for rows in S, 0 elsewhere: the classical (Boolean) characteristic function. */
  readonly mask: Uint8Array;
}

/**
 * The subobject S_t = {x : χ(x) ≥ t} of the rows of `x`. At t = 1 it is χ⁻¹(⊤), the subobject
 * χ classifies in the strict sense; t = 0.5 gives the classifier's positive class (the pullback
 * of ⊤ along the Boolean collapse [0,1] → {0,1}, p ↦ [p ≥ t]).
 */
export function subobject(chi: Characteristic, x: Tensor, threshold = 0.5): Subobject {
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeArgError(`subobject threshold ${threshold} is outside Ω = [0, 1]`);
  const truth = chi(x);
  const mask = Uint8Array.from(truth, (v) => (v >= threshold ? 1 : 0));
  const members: number[] = [];
  mask.forEach((m, i) => m && members.push(i));
  return { threshold, truth, mask, members };
}

/** A characteristic morphism from a plain function of 2-D points (for tests and examples). */
export function characteristicOf(f: (x: number, y: number) => number): Characteristic {
  return (x: Tensor): Float64Array => {
    const d = x.size / Math.max(1, x.batch);
    if (d !== 2) throw new ShapeError(`characteristicOf expects points [*,2], got ${d} values per row`);
    return Float64Array.from({ length: x.batch }, (_, i) => f(x.data[2 * i]!, x.data[2 * i + 1]!));
  };
}
