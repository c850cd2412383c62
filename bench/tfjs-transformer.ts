/**
 * TensorFlow.js's side of the char-transformer workload (bench/workloads.ts charTransformer):
 * the same model written the way a TF.js user would — variables, the embedding as a one-hot
 * product (tf.gather's gradient, UnsortedSegmentSum, is missing from TF.js-wasm),
 * layer norm from tf.moments, batched tf.matMul over [B, heads, T, dh] for attention with
 * interleaved RoPE (pairs split, rotated, stacked back), an additive causal mask, GELU (tanh
 * form), softmax cross-entropy on one-hot targets — trained with tf.train.adam. The same
 * code on any TF.js backend: wasm here (timeTfjsCharTransformer), WebGPU in bench/gpu.ts.
 */
import { ratesAfterWarmUp, tokenWindows } from './workloads.js';
import type { BenchConfig, CharTransformerConfig } from './workloads.js';

type TF = typeof import('@tensorflow/tfjs');
type T = import('@tensorflow/tfjs').Tensor;
type V = import('@tensorflow/tfjs').Variable;

/** The model, its `steps` batches and its optimiser: `epoch` queues one pass (read `probe` to wait for it); `tokens` per epoch. */
export interface TfjsCharTransformer {
  epoch(): void;
  readonly probe: T;
  readonly tokens: number;
  dispose(): void;
}

export function tfjsCharTransformer(tf: TF, c: CharTransformerConfig): TfjsCharTransformer {
  if (c.pos !== 'rope') throw new Error(`the TF.js char transformer is written for rope only, not ${c.pos}`);
  const { vocab, d, heads, ff, context: Tn, batch: B, steps } = c,
    dh = d / heads;
  const uniform = (shape: number[], fanIn: number, seed: number): V =>
    tf.variable(tf.randomUniform(shape, -1 / Math.sqrt(fanIn), 1 / Math.sqrt(fanIn), 'float32', seed));
  let seed = 1;
  const emb = tf.variable(tf.randomNormal([vocab, d], 0, 1, 'float32', seed++));
  const blocks = Array.from({ length: c.blocks }, () => ({
    g1: tf.variable(tf.ones([d])),
    b1: tf.variable(tf.zeros([d])),
    wq: uniform([d, d], d, seed++),
    wk: uniform([d, d], d, seed++),
    wv: uniform([d, d], d, seed++),
    wo: uniform([d, d], d, seed++),
    g2: tf.variable(tf.ones([d])),
    b2: tf.variable(tf.zeros([d])),
    w1: uniform([d, ff], d, seed++),
    c1: tf.variable(tf.zeros([ff])),
    w2: uniform([ff, d], ff, seed++),
    c2: tf.variable(tf.zeros([d])),
  }));
  const gf = tf.variable(tf.ones([d])),
    bf = tf.variable(tf.zeros([d]));
  const head = uniform([d, vocab], d, seed++),
    headB = tf.variable(tf.zeros([vocab]));
  // RoPE tables [T, dh/2] and the causal mask [T, T]
  const omega = Array.from({ length: dh / 2 }, (_, i) => Math.pow(10000, (-2 * i) / dh));
  const angles = Array.from({ length: Tn * (dh / 2) }, (_, k) => Math.floor(k / (dh / 2)) * omega[k % (dh / 2)]!);
  const cos = tf.tensor2d(angles.map(Math.cos), [Tn, dh / 2]),
    sin = tf.tensor2d(angles.map(Math.sin), [Tn, dh / 2]);
  const mask = tf.tensor2d(
    Array.from({ length: Tn * Tn }, (_, k) => (k % Tn > Math.floor(k / Tn) ? -1e9 : 0)),
    [Tn, Tn],
  );

  const layerNorm = (x: T, g: T, b: T): T => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), b);
  };
  const rope = (x: T): T => {
    // x [B, H, T, dh] → pairs [B, H, T, dh/2, 2]
    const [a, b] = tf.split(tf.reshape(x, [B, heads, Tn, dh / 2, 2]), 2, -1).map((p) => tf.squeeze(p, [4]));
    return tf.reshape(tf.stack([tf.sub(tf.mul(a!, cos), tf.mul(b!, sin)), tf.add(tf.mul(a!, sin), tf.mul(b!, cos))], -1), [B, heads, Tn, dh]);
  };
  const split = (x: T): T => tf.transpose(tf.reshape(x, [B, Tn, heads, dh]), [0, 2, 1, 3]);
  const gelu = (x: T): T => tf.mul(tf.mul(0.5, x), tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.pow(x, 3)))))));
  const dense2 = (x: T, w: T, b?: T): T => {
    const y = tf.matMul(tf.reshape(x, [B * Tn, -1]), w);
    return b ? tf.add(y, b) : y;
  };

  const loss = (ids: T, targets: T): import('@tensorflow/tfjs').Scalar => {
    let h = tf.reshape(tf.matMul(tf.oneHot(tf.reshape(ids, [B * Tn]), vocab), emb), [B, Tn, d]);
    for (const k of blocks) {
      const z = layerNorm(h, k.g1, k.b1);
      const q = rope(split(dense2(z, k.wq))),
        kk = rope(split(dense2(z, k.wk))),
        v = split(dense2(z, k.wv));
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, kk, false, true), 1 / Math.sqrt(dh)), mask));
      const o = tf.reshape(tf.transpose(tf.matMul(att, v), [0, 2, 1, 3]), [B * Tn, d]);
      h = tf.add(h, tf.reshape(tf.matMul(o, k.wo), [B, Tn, d]));
      const z2 = layerNorm(h, k.g2, k.b2);
      h = tf.add(h, tf.reshape(dense2(gelu(dense2(z2, k.w1, k.c1)), k.w2, k.c2), [B, Tn, d]));
    }
    const logits = dense2(layerNorm(h, gf, bf), head, headB);
    return tf.losses.softmaxCrossEntropy(tf.oneHot(tf.reshape(targets, [B * Tn]), vocab), logits) as import('@tensorflow/tfjs').Scalar;
  };

  const ids = tokenWindows(B * steps, c, 11);
  const batches = Array.from({ length: steps }, (_, s) => {
    const x: number[] = [],
      y: number[] = [];
    for (let b = 0; b < B; b++) {
      const o = (s * B + b) * (Tn + 1);
      for (let t = 0; t < Tn; t++) {
        x.push(ids[o + t]!);
        y.push(ids[o + t + 1]!);
      }
    }
    return [tf.tensor2d(x, [B, Tn], 'int32'), tf.tensor2d(y, [B, Tn], 'int32')] as const;
  });
  const opt = tf.train.adam(c.lr);
  return {
    epoch: () => {
      for (const [x, y] of batches)
        tf.tidy(() => {
          opt.minimize(() => loss(x, y), false);
        });
    },
    probe: emb,
    tokens: steps * B * Tn,
    dispose: () => {
      tf.dispose([emb, gf, bf, head, headB, cos, sin, mask, ...blocks.flatMap((k) => Object.values(k)), ...batches.flat()]);
      opt.dispose();
    },
  };
}

/** Tokens/s of epochs on a backend that reads back synchronously (TF.js wasm), after a warm-up epoch. */
export function timeTfjsCharTransformer(tf: TF, cfg: BenchConfig): number[] {
  const m = tfjsCharTransformer(tf, cfg.charTransformer);
  const epoch = (): void => {
    m.epoch();
    m.probe.dataSync();
  };
  const out = ratesAfterWarmUp(epoch, m.tokens, cfg);
  m.dispose();
  return out;
}
