import { softmaxCrossEntropy } from '../nn/loss.js';
import { seqOf } from '../para/composite.js';
import type { Para } from '../para/para.js';

/**
 * What a model's two ends say about how it trains: an embedding first reads token ids (inputs
 * that must reach it as they are, never scaled or standardised), and a softmax or log-softmax
 * over the last axis last means the outputs are probabilities or log-probabilities, not the
 * logits a cross-entropy loss takes.
 */

/** The first primitive a sample reaches (through seq and residual-like combinators' first child). */
function firstLeaf(m: Para): Para {
  let f = m;
  while (f.children.length && f.kind !== 'embedding') f = f.children[0]!;
  return f;
}

/** Whether the model's first layer is an embedding: its inputs are token ids. */
export function readsTokenIds(model: Para): boolean {
  return firstLeaf(model).kind === 'embedding';
}

export type OutputLink = 'softmax' | 'log-softmax';

/** The axis an operator layer names (`axis(k)`, counted with the batch first; ONNX's default −1 when absent). */
function axisArg(m: Para): number {
  for (const a of m.args) {
    const hit = /^axis\((-?\d+)\)$/.exec(String(a));
    if (hit) return Number(hit[1]);
  }
  return -1;
}

/** The link a last layer is: softmax or log-softmax over the last axis, else undefined. */
function linkOf(last: Para): OutputLink | undefined {
  if (last.kind === 'softmax') return 'softmax';
  if (last.kind !== 'Softmax' && last.kind !== 'LogSoftmax') return undefined;
  const axis = axisArg(last);
  const rank = (last.dom?.length ?? 0) + 1;
  if (axis !== -1 && axis !== rank - 1) return undefined;
  return last.kind === 'Softmax' ? 'softmax' : 'log-softmax';
}

/**
 * A model that ends in a softmax or log-softmax over the last axis, split there: `body` computes
 * the logits (the same parameters, in the same order: the link has none), `link` is what the
 * last layer was. Undefined when the model does not end so.
 */
export function splitOutputLink(model: Para): { body: Para; head: Para; link: OutputLink } | undefined {
  // a model that is nothing but the link has no logits to train
  if (model.kind !== 'seq') return undefined;
  const parts = model.children;
  const head = parts[parts.length - 1];
  if (!head || head.params.length) return undefined;
  const link = linkOf(head);
  if (!link) return undefined;
  return { body: seqOf(parts.slice(0, -1)), head, link };
}

/**
 * The morphism a classifier trains: a model ending in a softmax (or log-softmax) over the last
 * axis trains through the logits before it with softmax-cross-entropy — the loss uses the head
 * as its link, instead of reading probabilities as logits — and keeps the head when saved.
 */
export function trainedPart(model: Para, lossName: string, declared: string | undefined): { part: Para; rejoin: (m: Para) => Para; notes: string[] } {
  const same = { part: model, rejoin: (m: Para) => m, notes: [] as string[] };
  if (lossName !== softmaxCrossEntropy.name) return same;
  const split = splitOutputLink(model);
  if (!split) {
    if (declared === 'softmax' || declared === 'log-softmax')
      same.notes.push(`the imported graph ends in a ${declared} that is not the model's last layer: its outputs are trained as logits`);
    return same;
  }
  const what =
    split.link === 'softmax'
      ? 'probabilities, not logits: softmax-cross-entropy trained the logits before it'
      : 'log-probabilities: softmax-cross-entropy trained the logits before it, the same negative log-likelihood';
  return {
    part: split.body,
    rejoin: (m) => seqOf([m, split.head]),
    notes: [`the model ends in ${split.head} (${what}); the saved model keeps the ${split.head.kind}`],
  };
}
