import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/index.js';
import { arrayScaling, describeScaling } from '../../src/data/arrays.js';
import { vocabularyOfSize } from '../../src/data/text.js';
import { readsTokenIds, splitOutputLink, trainedPart } from '../../src/train/model-ends.js';

/** What fine-tuning reads from a model's ends and a data set's values (issue 29, point 4), with negative controls. */
describe("a model's ends", () => {
  it('a softmax or log-softmax over the last axis is split off; over another axis, or a model that is only the link, is not', () => {
    const soft = splitOutputLink(parseSpec('dense(4,3) >> softmax').at([4]));
    expect(soft?.link).toBe('softmax');
    expect(String(soft?.body)).toBe('dense(4,3)');
    expect(splitOutputLink(parseSpec('dense(4,3) >> LogSoftmax(axis(-1))').at([4]))?.link).toBe('log-softmax');
    expect(splitOutputLink(parseSpec('dense(4,3) >> LogSoftmax(axis(1))').at([4]))?.link).toBe('log-softmax');
    // [3,4] per sample: axis −2 is not the last one
    const rows = parseSpec('dense(4,4)').at([3, 4]);
    expect(splitOutputLink(rows.then(parseSpec('Softmax(axis(-2))')))).toBeUndefined();
    expect(splitOutputLink(rows.then(parseSpec('Softmax(axis(-1))')))?.link).toBe('softmax');
    expect(splitOutputLink(parseSpec('dense(4,3) >> tanh').at([4]))).toBeUndefined();
    expect(splitOutputLink(parseSpec('softmax').at([4]))).toBeUndefined();
  });

  it('the trained part is the body only for softmax-cross-entropy; rejoined it is the model again', () => {
    const m = parseSpec('dense(4,3) >> softmax').at([4]);
    const t = trainedPart(m, 'softmax-cross-entropy', undefined);
    expect(String(t.part)).toBe('dense(4,3)');
    expect(String(t.rejoin(t.part))).toBe(String(m));
    expect(t.notes.join()).toMatch(/probabilities, not logits/);
    expect(String(trainedPart(m, 'mse', undefined).part)).toBe(String(m));
    expect(trainedPart(parseSpec('dense(4,3)').at([4]), 'softmax-cross-entropy', 'softmax').notes.join()).toMatch(/not the model's last layer/);
  });

  it('an embedding first reads token ids', () => {
    expect(readsTokenIds(parseSpec('embedding(10,4) >> dense(4,2)').at([5]))).toBe(true);
    expect(readsTokenIds(parseSpec('dense(5,2)').at([5]))).toBe(false);
  });
});

describe('--scale and a vocabulary of a fixed size', () => {
  const arr = (kind: 'float' | 'uint8', values: number[]) => ({ shape: [values.length], kind, data: Float64Array.from(values) });
  it('unit: 8-bit ÷255, floats in [0,1] as they are, integers 0…255 ÷255, anything else refused', () => {
    expect(arrayScaling(arr('uint8', [0, 255]), 'unit', 'x')).toEqual({ scale: 1 / 255, standardize: false });
    expect(arrayScaling(arr('float', [0, 0.5, 1]), 'unit', 'x')).toEqual({ scale: 1, standardize: false });
    expect(arrayScaling(arr('float', [0, 17, 255]), 'unit', 'x')).toEqual({ scale: 1 / 255, standardize: false });
    expect(() => arrayScaling(arr('float', [-1, 2.5]), 'unit', 'x')).toThrow(/values from -1 to 2.5/);
    expect(arrayScaling(arr('float', [3, 4]), 'none', 'x')).toEqual({ scale: 1, standardize: false });
    expect(arrayScaling(arr('float', [3, 4]), undefined, 'x')).toEqual({ scale: 1, standardize: true });
    expect(describeScaling({ scale: 1 / 255, standardize: true })).toMatch(/^÷255 .* then standardised/);
  });

  it('the most frequent characters, in code-point order, padded with private-use ones the text lacks', () => {
    expect(vocabularyOfSize('aaabbc', 2)).toEqual(['a', 'b']);
    expect(vocabularyOfSize('cab', 3)).toEqual(['a', 'b', 'c']);
    expect(vocabularyOfSize('ab', 4)).toEqual(['a', 'b', '\uE000', '\uE001']);
  });
});
