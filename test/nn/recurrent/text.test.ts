import { describe, expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../../src/index.js';
import { textCorpus, vocabSize } from '../../../src/data/text.js';
import { TextStreams } from '../../../src/data/text-streams.js';
import { StateCarry, withRegime } from '../../../src/nn/recurrent/index.js';
import { clipByNorm } from '../../../src/optim/clip.js';
import { trainLanguageModel } from '../../../src/train/language-model.js';
import type { LanguageModelRunState } from '../../../src/train/language-model.js';
import type { TrainerSnapshot } from '../../../src/train/trainer.js';
import { generate } from '../../../src/train/generate.js';
import { streamBitsPerChar } from '../../../src/train/text-metrics.js';

/**
 * Recurrent models on text: the state carried across consecutive windows is the state of one
 * long pass, streams read their segments window after window, a run resumed from a checkpoint
 * (the streams' positions and the carried states in its run state) ends with the bits of one
 * never stopped, gradient clipping is PyTorch's, decoding carries the state without a window.
 */
const TEXT = 'the quick brown fox jumps over the lazy dog; a stitch in time saves nine. '.repeat(12);
const corpus = textCorpus('t', TEXT);
const V = vocabSize(corpus.vocabulary);
const LM = `embedding(${V},6) >> lstm(6,7) >> gru(7,5) >> dense(5,${V})`;

describe('recurrent models on text', () => {
  it('a window started from the states the previous one ended in gives what one pass over both gives', () => {
    const m = parseSpec(LM);
    const theta = m.at([10]).init(3);
    const ids = Tensor.of(Array.from(corpus.train.subarray(0, 2 * 10)), [1, 20]);
    const whole = m.at([20]).run(theta, ids).data;
    const carry = new StateCarry();
    const halves = [0, 1].map((k) => {
      carry.begin();
      const x = new Tensor(ids.data.slice(10 * k, 10 * k + 10), [1, 10]);
      return m.at([10]).forward(theta, x, withRegime(makeCtx(), { carry })).y.data;
    });
    const joined = [...halves[0]!, ...halves[1]!];
    for (let i = 0; i < whole.length; i++) expect(Math.abs(joined[i]! - whole[i]!)).toBeLessThan(1e-5);
  });

  it('streams read their segments in consecutive windows from seeded starts and start over at the segment end', () => {
    const s = new TextStreams(100, 8, 4, new Rng(1));
    const starts = [...s.positions];
    starts.forEach((p, b) => expect(p >= b * 25 && p + 9 <= (b + 1) * 25).toBe(true));
    const ids = Float32Array.from({ length: 100 }, (_, i) => i);
    const x = new Float32Array(32),
      y = new Float32Array(32);
    let restarted: number[] = [];
    for (let k = 0; k < 3 && restarted.length === 0; k++) {
      const before = [...s.positions];
      restarted = s.next(ids, x, y);
      for (let b = 0; b < 4; b++) {
        const p = restarted.includes(b) ? b * 25 : before[b]!;
        expect(Array.from(x.subarray(b * 8, b * 8 + 8))).toEqual(Array.from({ length: 8 }, (_, t) => p + t));
        expect(y[b * 8]).toBe(p + 1);
      }
    }
    expect(() => new TextStreams(30, 8, 4, new Rng(1))).toThrow(/cannot hold 4 streams of windows of 8/);
  });

  it('a run resumed from the checkpoint state of step 5 ends with the same parameters and bits as one never stopped', () => {
    const opts = { context: 8, batch: 3, steps: 9, optimizer: 'adam', lr: 0.01, seed: 4, bptt: 3, clip: 0.5 };
    const straight = trainLanguageModel(parseSpec(LM), corpus, opts);
    let snap: TrainerSnapshot | undefined, state: LanguageModelRunState | undefined;
    trainLanguageModel(parseSpec(LM), corpus, {
      ...opts,
      afterStep: (t, s) => {
        if (t.step === 5) {
          snap = t.snapshot();
          state = JSON.parse(JSON.stringify(s)) as LanguageModelRunState;
        }
      },
    });
    expect(state!.streams).toHaveLength(3);
    expect(state!.carried!.length).toBe(2);
    const resumed = trainLanguageModel(parseSpec(LM), corpus, { ...opts, onStart: (t) => t.restore(snap!), resumed: state });
    resumed.theta.forEach((t, i) => expect(Array.from(t.data)).toEqual(Array.from(straight.theta[i]!.data)));
    expect(resumed.valBitsPerChar).toBe(straight.valBitsPerChar);
    expect(resumed.bitsPerChar).toBe(straight.bitsPerChar);
  });

  it('refuses --bptt for a model without recurrent layers, and a bptt of 0', () => {
    const opts = { context: 8, batch: 2, steps: 1, optimizer: 'adam', lr: 0.01 };
    expect(() => trainLanguageModel(parseSpec(`embedding(${V},4) >> dense(4,${V})`), corpus, { ...opts, bptt: 2 })).toThrow(
      /--bptt 2 truncates recurrent layers .* has none/,
    );
    expect(() => trainLanguageModel(parseSpec(LM), corpus, { ...opts, bptt: 0 })).toThrow(/--bptt must be a positive integer/);
  });

  it('stream evaluation predicts every character but the first once (a constant model scores log2 V)', () => {
    // a model whose logits do not depend on its input: every prediction costs log2 V bits
    const m = parseSpec(`embedding(${V},3) >> lstm(3,2) >> dense(2,${V})`);
    const theta = m.at([8]).init(0);
    theta[theta.length - 2]!.data.fill(0);
    theta[theta.length - 1]!.data.fill(0);
    expect(streamBitsPerChar(m, theta, corpus.val, 8, V)).toBeCloseTo(Math.log2(V), 10);
  });

  it('clipByNorm scales every gradient by maxNorm/(‖g‖ + 1e-6) when that is below 1, as clip_grad_norm_ does', () => {
    const g = [Tensor.of([3, 0], [2], 'float64'), Tensor.of([4], [1], 'float64')];
    expect(clipByNorm(g, 10)).toBe(5);
    expect(Array.from(g[0]!.data)).toEqual([3, 0]);
    expect(clipByNorm(g, 1)).toBe(5);
    const c = 1 / (5 + 1e-6);
    expect(g[0]!.data[0]).toBeCloseTo(3 * c, 15);
    expect(g[1]!.data[0]).toBeCloseTo(4 * c, 15);
  });

  it('generation carries the state: greedy decoding past the training window equals argmax of one forward over everything', () => {
    const m = parseSpec(LM);
    const theta = m.at([4]).init(8);
    const prompt = Array.from(corpus.train.subarray(0, 3));
    const out = generate(m, theta, prompt, 9, { window: 4, rng: new Rng(0), temperature: 0 });
    const seq = [...prompt, ...out];
    const y = m.at([seq.length - 1]).run(theta, Tensor.of(seq.slice(0, -1), [1, seq.length - 1]));
    for (let t = prompt.length - 1; t < seq.length - 1; t++) {
      const row = Array.from(y.data.subarray(t * V, (t + 1) * V));
      expect(row.indexOf(Math.max(...row)), `position ${t}`).toBe(seq[t + 1]);
    }
  });
});
