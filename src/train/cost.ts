import { clip, formatBytes, formatCount, TooLargeError } from '../errors.js';
import type { CostEstimate } from '../errors.js';
import type { Para } from '../para/para.js';
import { sizeOf } from '../tensor/tensor.js';

/**
 * What training costs, estimated from the model's shapes before a parameter is allocated:
 *
 * - memory: θ, its gradient and the optimiser's state (Adam: two moments) per parameter, and
 *   per minibatch row the activations every layer keeps for its pullback and the gradients
 *   flowing back through them (each node's output, counted three times: value, gradient, and a
 *   scratch buffer of the arena) — constructing a model is only the first of these;
 * - work: multiply-adds, at least one per parameter per row forward and two backward (a dense
 *   layer's count; convolutions and attention cost more, so this bound never refuses work that
 *   would have been cheap), times the rows a run passes through.
 *
 * Over TRAINING_LIMITS is a TooLargeError (E_TOO_LARGE, CLI exit 2) naming the estimate.
 */
export const TRAINING_LIMITS = {
  /** Memory of one training run: 1 GiB (the budget every input is held to, docs/reliability.md). */
  bytes: 2 ** 30,
  /** Multiply-adds of one run: 10¹⁵, about a day of CPU at 10 GFLOP/s. */
  work: 1e15,
} as const;

/** State tensors per parameter tensor each optimiser keeps (momentum: v; Adam: m and v); the Fisher-based ones check their own cost. */
const OPTIMIZER_SLOTS: Readonly<Record<string, number>> = { sgd: 0, momentum: 1, nesterov: 1, adam: 2, adamw: 2 };

/** Scalar parameters of a morphism (from its shapes: nothing allocated). */
export function parameterCount(model: Para): number {
  return model.params.reduce((n, p) => n + sizeOf(p.shape), 0);
}

/**
 * Per-sample elements of every output inside the morphism (each factor of a composite, each
 * branch of a product, the whole): what its forward keeps for the pullback. Its depth is the
 * spec's nesting, which the spec grammar bounds.
 */
export function activationElements(model: Para): number {
  const own = model.cod ? sizeOf(model.cod) : 0;
  return own + model.children.reduce((n, c) => n + activationElements(c), 0);
}

/** Bytes one training step holds: parameters with gradients and optimiser state, and a minibatch's activations. */
export function trainingBytes(model: Para, batch: number, optimizer: string | undefined, bytesPerValue = 4): number {
  const slots = OPTIMIZER_SLOTS[optimizer ?? 'sgd'] ?? 2;
  const inputs = model.dom ? sizeOf(model.dom) : 0;
  return bytesPerValue * (parameterCount(model) * (2 + slots) + 3 * batch * (inputs + activationElements(model)));
}

/** Refuses a training step whose memory (trainingBytes) exceeds the limit, before θ is allocated. */
export function checkTrainingMemory(model: Para, batch: number, optimizer: string | undefined, limit: number = TRAINING_LIMITS.bytes): void {
  const bytes = trainingBytes(model, batch, optimizer);
  if (bytes > limit) {
    const p = parameterCount(model);
    throw new TooLargeError(
      `training ${clip(model, 80)} takes about ${formatBytes(bytes)} (${formatCount(p)} parameters with their gradients and ${optimizer ?? 'sgd'}'s state, activations of ${batch} rows); the limit is ${formatBytes(limit)}: use a smaller model or --batch`,
      { bytes, elements: p },
    );
  }
}

/**
 * Refuses a run that passes `rows` samples through the model in all (epochs × rows per epoch,
 * or steps × batch × positions) plus `evaluated` samples forward only, when its work exceeds
 * the limit. `what` says what was asked ('1e15 epochs of 4 rows').
 */
export function checkTrainingWork(model: Para, rows: number, evaluated: number, what: string, limit: number = TRAINING_LIMITS.work): CostEstimate {
  const p = parameterCount(model);
  const work = 3 * p * rows + p * evaluated;
  const estimate = { work, elements: p };
  if (!(work <= limit))
    throw new TooLargeError(
      `${what} with ${formatCount(p)} parameters take at least ${formatCount(work)} multiply-adds; the limit is ${formatCount(limit)} (about a day of CPU)`,
      estimate,
    );
  return estimate;
}

/** Refuses `count` repetitions (seeds, restarts) of a run of `each` multiply-adds beyond the limit, before the first starts. */
export function checkRepeatedWork(count: number, each: number, what: string, limit: number = TRAINING_LIMITS.work): void {
  const work = count * each;
  if (!(work <= limit))
    throw new TooLargeError(
      `${what}: ${formatCount(count)} runs of at least ${formatCount(each)} multiply-adds each take ${formatCount(work)}; the limit is ${formatCount(limit)} (about a day of CPU)`,
      { work },
    );
}
