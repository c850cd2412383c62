import { applyUnary } from '../tensor/js-backend.js';
import { Tensor } from '../tensor/tensor.js';
import { softmaxRows } from './softmax.js';

/**
 * The output link of a model: how its raw outputs become predictions — unchanged (identity),
 * logistic (one logit per output), or softmax (logits over the classes of a row). Each loss
 * names the link under which it is a likelihood (Loss.link): mse the identity, bce the
 * sigmoid, softmax cross-entropy the softmax.
 */
export type Link = 'identity' | 'sigmoid' | 'softmax';

/** Whether the raw outputs are logits that the link turns into probabilities (sigmoid, softmax), not the predictions themselves. */
export function readsLogits(link: Link): boolean {
  return link !== 'identity';
}

/** link applied row by row, into a new float64 tensor. */
export function applyLink(y: Tensor, link: Link): Tensor {
  const out = Tensor.zeros(y.shape, 'float64');
  if (link === 'softmax') softmaxRows(y.data, y.batch, y.size / y.batch, out.data);
  else if (link === 'sigmoid') for (let i = 0; i < y.size; i++) out.data[i] = applyUnary('sigmoid', y.data[i]!);
  else out.data.set(y.data);
  return out;
}
