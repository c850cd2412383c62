import { describe, expect, it } from 'vitest';
import {
  attention,
  DataError,
  dense,
  embedding,
  gradcheck,
  makeCtx,
  parseSpec,
  Rng,
  SpecError,
  Tensor,
  tokenCrossEntropy,
  transformer,
} from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { stepper } from '../../src/train/decode.js';

const randn = (shape: number[], rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
    'float64',
  );
const ids = (shape: number[], V: number, rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.int(V)),
    shape,
    'float64',
  );
const maxDiff = (a: Tensor, b: Tensor): number => a.data.reduce((m, v, i) => Math.max(m, Math.abs(v - b.data[i]!)), 0);

const POSITIONS = ['rope', 'relative', 'relative(3)', 'absolute(9)', 'none'];

describe('the text-model layers pass float64 gradient checks', () => {
  it.each(
    POSITIONS.flatMap((p) => [
      [p, 'causal'],
      [p, 'none'],
    ]),
  )('attention(8,2,%s) with mask %s', (pos, mask) => {
    for (const seed of [1, 2, 3]) {
      const f = attention(8, 2, pos, mask as 'causal' | 'none');
      const r = gradcheck(f, { dom: [6, 8], seed, batch: 2 });
      expect(r.relError, `${f}: ${r.analytic} vs ${r.numeric}`).toBeLessThan(1e-7);
    }
  });

  it('layernorm and rmsnorm on vectors and on sequences; embedding with ids held fixed; a two-block language model', () => {
    for (const [spec, dom] of [
      ['layernorm(5)', [5]],
      ['layernorm(5)', [3, 5]],
      ['rmsnorm(5)', [3, 5]],
      ['dense(5,3)', [4, 5]],
    ] as const) {
      const r = gradcheck(parseSpec(spec), { dom: [...dom], seed: 4 });
      expect(r.relError, spec).toBeLessThan(1e-7);
    }
    const rng = new Rng(5);
    for (const spec of [
      'embedding(7,4)',
      'embedding(7,8) >> transformer(8,2,16,rope) >> transformer(8,2,16,relative) >> layernorm(8) >> dense(8,7)',
      'tied(embedding(7,8) >> transformer(8,4,16,none) >> rmsnorm(8) >> dense(8,7))',
    ]) {
      const r = gradcheck(parseSpec(spec), { dom: [6], x: ids([2, 6], 7, rng), fixedInput: true, seed: 6 });
      expect(r.relError, spec).toBeLessThan(1e-7);
    }
  });
});

describe('token-cross-entropy', () => {
  it('is the mean over positions of −log softmax(z)[target] over the last axis, and its pullback is (softmax − onehot)/positions', () => {
    const rng = new Rng(11);
    const z = randn([2, 3, 4], rng),
      t = ids([2, 3], 4, rng);
    let nll = 0;
    for (let r = 0; r < 6; r++) {
      const row = Array.from(z.data.subarray(r * 4, r * 4 + 4));
      const lse = Math.log(row.reduce((a, v) => a + Math.exp(v), 0));
      nll += lse - row[t.data[r]!]!;
    }
    const L = tokenCrossEntropy.apply(z, t);
    expect(L.value).toBeCloseTo(nll / 6, 12);
    const g = L.pullback(2);
    const eps = 1e-6,
      i = 5;
    const zp = z.clone(),
      zm = z.clone();
    zp.data[i]! += eps;
    zm.data[i]! -= eps;
    expect(g.data[i]!).toBeCloseTo((2 * (tokenCrossEntropy.apply(zp, t).value - tokenCrossEntropy.apply(zm, t).value)) / (2 * eps), 6);
    expect(() => tokenCrossEntropy.apply(z, Tensor.of([0, 1, 9, 0, 0, 0], [2, 3]))).toThrow(/token id 9/);
    expect(() => tokenCrossEntropy.apply(z, Tensor.zeros([2, 4]))).toThrow(/one target id per position/);
  });
});

describe('embedding', () => {
  it('looks rows up by id, and refuses ids that are not integers in 0…V−1, naming the id and V', () => {
    const f = embedding(4, 2);
    const W = Tensor.of([0, 1, 10, 11, 20, 21, 30, 31], [4, 2]);
    expect(Array.from(f.run([W], Tensor.of([3, 0, 2], [1, 3])).data)).toEqual([30, 31, 0, 1, 20, 21]);
    expect(() => f.run([W], Tensor.of([1, 4], [1, 2]))).toThrow(DataError);
    expect(() => f.run([W], Tensor.of([1, 4], [1, 2]))).toThrow(/token id 4 .*V = 4/);
    expect(() => f.run([W], Tensor.of([1.5], [1, 1]))).toThrow(/token id 1.5/);
    expect(() => f.run([W], Tensor.of([-1], [1, 1]))).toThrow(/token id -1/);
  });

  it('scatter-adds the gradient rows into the table (repeated ids add up)', () => {
    const f = embedding(3, 2);
    const W = Tensor.zeros([3, 2], 'float64');
    const lens = f.forward([W], Tensor.of([1, 1, 2], [1, 3], 'float64'), makeCtx());
    const dW = Tensor.zeros([3, 2], 'float64');
    lens.pullback(Tensor.of([1, 2, 3, 4, 5, 6], [1, 3, 2], 'float64'), [dW]);
    expect(Array.from(dW.data)).toEqual([0, 0, 4, 6, 5, 6]);
  });
});

describe('dense on sequences', () => {
  it('acts on the last axis at every position: dense on [T,in] is dense on each row', () => {
    const rng = new Rng(7);
    const f = dense(3, 2),
      theta = f.init(rng, 'float64');
    const x = randn([2, 4, 3], rng);
    const y = f.at([4, 3]).run(theta, x);
    expect(y.shape).toEqual([2, 4, 2]);
    const rows = f.run(theta, x.reshape([8, 3]));
    expect(maxDiff(y.reshape([8, 2]), rows)).toBe(0);
    expect(String(f.at([4, 3]))).toBe('dense(3,2)');
    expect(() => f.at([4, 5])).toThrow(/expects \[\*,3\]/);
  });
});

describe('transformer', () => {
  const expansion = 'residual(layernorm(8) >> attention(8,2,rope)) >> residual(layernorm(8) >> dense(8,16) >> gelu >> dense(16,8))';

  it('prints as itself and as its expansion, and both parse back to an equal morphism', () => {
    const block = parseSpec('transformer(8,2,16,rope)');
    expect(String(block)).toBe('transformer(8,2,16,rope)');
    expect(String(block.children[0])).toBe(expansion);
    const a = block.at([5, 8]),
      b = parseSpec(String(block.children[0])).at([5, 8]);
    expect(b.params.map((p) => p.shape)).toEqual(a.params.map((p) => p.shape));
    const rng = new Rng(8);
    const theta = a.init(rng, 'float64'),
      x = randn([3, 5, 8], rng);
    expect(maxDiff(a.run(theta, x), b.run(theta, x))).toBe(0);
    expect(String(parseSpec(String(a)))).toBe(String(a));
  });

  it('inside a language model, with vocab bound to the vocabulary size', () => {
    const spec = 'embedding(vocab,8) >> transformer(8,2,16,relative) >> layernorm(8) >> dense(8,vocab)';
    const lm = parseSpec(spec, { constants: { vocab: 11 } });
    expect(String(lm)).toBe('embedding(11,8) >> transformer(8,2,16,relative) >> layernorm(8) >> dense(8,11)');
    expect(lm.at([6]).cod).toEqual([6, 11]);
    expect(() => parseSpec(spec)).toThrow(SpecError);
    expect(() => parseSpec(spec)).toThrow(/'vocab'.*vocabulary size/);
    expect(() => parseSpec('dense(vocab,2)', { constants: { vocab: 2.5 } })).toThrow(/integer/);
  });

  it('absolute(Tmax) refuses a longer context, naming Tmax; the others take any length', () => {
    expect(() => transformer(8, 2, 16, 'absolute(4)').at([5, 8])).toThrow(/absolute\(4\)/);
    for (const p of ['rope', 'relative', 'none']) expect(transformer(8, 2, 16, p).at([50, 8]).dom).toEqual([50, 8]);
    expect(() => attention(8, 3, 'rope')).toThrow(/heads must divide d/);
    expect(() => attention(6, 2, 'rope')).toThrow(/even/);
    expect(() => parseSpec('attention(8,2,sideways)')).toThrow(/rope, relative/);
    expect(() => parseSpec('attention(8,2,rope,sometimes)')).toThrow(/causal or none/);
  });
});

describe('tied', () => {
  it('shares the embedding table with the head: one tensor fewer, the same function as the untied model with W_head = E', () => {
    const spec = 'embedding(6,4) >> transformer(4,2,8,none) >> dense(4,6)';
    const untied = parseSpec(spec).at([3]);
    const t = parseSpec(`tied(${spec})`).at([3]);
    expect(String(t)).toBe(`tied(${spec})`);
    expect(t.params.length).toBe(untied.params.length - 1);
    const rng = new Rng(9);
    const q = t.init(rng, 'float64');
    // untied θ: the shared table in both places (tied parameters come first, then the free ones in order)
    const free = q.slice(1);
    const theta: Tensor[] = [q[0]!, ...free.slice(0, untied.params.length - 3), q[0]!, free[free.length - 1]!];
    expect(theta.map((x) => x.shape)).toEqual(untied.params.map((p) => p.shape));
    const x = ids([2, 3], 6, rng);
    expect(maxDiff(t.run(q, x), untied.run(theta, x))).toBe(0);
    expect(() => parseSpec('tied(dense(4,6))')).toThrow(/no embedding/);
  });
});

/** f on the batch, run one step per position through its Stepper (the key/value cache). */
function stepped(f: Para, theta: Tensor[], x: Tensor, chunk: number): Tensor {
  const s = stepper(f, theta, makeCtx())!;
  const T = x.shape[1]!,
    per = x.size / x.batch / T;
  const parts: Tensor[] = [];
  for (let t = 0; t < T; t += chunk) {
    const L = Math.min(chunk, T - t);
    const xs = Tensor.zeros([x.batch, L, ...x.shape.slice(2)], x.dtype);
    for (let b = 0; b < x.batch; b++) xs.data.set(x.data.subarray((b * T + t) * per, (b * T + t + L) * per), b * L * per);
    parts.push(s.step(xs));
  }
  const outPer = parts[0]!.size / x.batch / parts[0]!.shape[1]!;
  const y = Tensor.zeros([x.batch, T, ...parts[0]!.shape.slice(2)], x.dtype);
  let t = 0;
  for (const p of parts) {
    const L = p.shape[1]!;
    for (let b = 0; b < x.batch; b++) y.data.set(p.data.subarray(b * L * outPer, (b + 1) * L * outPer), (b * T + t) * outPer);
    t += L;
  }
  return y;
}

describe('decoding with a key/value cache', () => {
  it.each(POSITIONS)('a %s language model stepped one position (or three) at a time gives the rows of the full forward', (pos) => {
    const rng = new Rng(10);
    const lm = parseSpec(`embedding(9,8) >> transformer(8,2,16,${pos}) >> transformer(8,2,16,${pos}) >> layernorm(8) >> dense(8,9)`).at([9]);
    const theta = lm.init(rng, 'float64');
    const x = ids([2, 9], 9, rng);
    const full = lm.run(theta, x);
    for (const chunk of [1, 3]) expect(maxDiff(stepped(lm, theta, x, chunk), full)).toBeLessThan(1e-12);
  });

  it('a tied model (a reparametrisation) and a residual block decode through their factors', () => {
    const rng = new Rng(11);
    for (const spec of [
      'tied(embedding(9,8) >> transformer(8,2,16,rope) >> dense(8,9))',
      'embedding(9,8) >> residual(attention(8,2,rope) >> dense(8,8)) >> dense(8,9)',
    ]) {
      const lm = parseSpec(spec).at([7]);
      const theta = lm.init(rng, 'float64');
      const x = ids([2, 7], 9, rng);
      expect(maxDiff(stepped(lm, theta, x, 2), lm.run(theta, x))).toBeLessThan(1e-12);
    }
    expect(stepper(parseSpec('embedding(9,8) >> attention(8,2,rope,none)'), [], makeCtx())).toBeUndefined();
  });

  it('only causal models have a stepper; absolute(Tmax) stops at Tmax', () => {
    expect(stepper(attention(8, 2, 'rope', 'none'), [], makeCtx())).toBeUndefined();
    const f = attention(4, 1, 'absolute(2)');
    const s = stepper(f, f.init(0), makeCtx())!;
    s.step(Tensor.zeros([1, 2, 4]));
    expect(() => s.step(Tensor.zeros([1, 1, 4]))).toThrow(/absolute\(2\).*position 2/);
  });
});
