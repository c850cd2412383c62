import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dense, gradcheck, layer, ops, parseSpec, Rng, seq, SpecError, Tensor, trace } from '../../src/index.js';
import { hostOnlyParts } from '../../src/tensor/index.js';
import type { Para } from '../../src/index.js';
import { elementwise } from '../../src/nn/activation.js';

/**
 * The operator graph as a Para morphism: its pullback is the reverse composite of its boxes'
 * (gradient summed at a fan-out), it prints as a spec that parses back to the same function of
 * the same parameters, and a layer written from ops.* needs no backward code.
 */

const randn = (shape: number[], seed: number): Tensor => {
  const rng = new Rng(seed);
  return Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
    'float64',
  );
};
const maxDiff = (a: Tensor, b: Tensor): number => Math.max(...Array.from(a.data, (v, i) => Math.abs(v - b.data[i]!)));

/** f and parseSpec(String(f)) at the same θ agree, and print the same. */
function roundTrips(f: Para, dom: number[]): void {
  const g = parseSpec(String(f)).at(dom);
  expect(String(g)).toBe(String(f));
  const theta = f.init(3, 'float64');
  const x = randn([3, ...dom], 4);
  expect(maxDiff(f.run(theta, x), g.run(theta, x))).toBe(0);
}

describe('layers written from ops.*', () => {
  const silu = layer('silu', (x) => ops.mul(x, ops.sigmoid(x)));

  it('SiLU: x·σ(x), its pullback by composition gradchecks, and spec strings name it', () => {
    const x = randn([4, 5], 1);
    const y = silu.at([5]).run([], x);
    for (let i = 0; i < x.size; i++) expect(y.data[i]).toBeCloseTo(x.data[i]! / (1 + Math.exp(-x.data[i]!)), 12);
    expect(gradcheck(silu, { dom: [5] }).ok).toBe(true);
    const net = parseSpec('dense(5,8) >> silu >> dense(8,2)');
    expect(String(net)).toBe('dense(5,8) >> silu >> dense(8,2)');
    expect(gradcheck(net).ok).toBe(true);
    // its expansion is the traced graph, which is itself a spec
    expect(String(net.children[1]!.children[0])).toBe('graph(x >> Sigmoid >> sigmoid, (x @ sigmoid) >> Mul >> mul)');
  });

  it('a custom attention score with a parameter: softmax(x·W·xᵀ/√d) on [T, d]', () => {
    const d = 4;
    const score = layer('bilinear_score', (x) => ops.softmax(ops.div(ops.matmul(ops.matmul(x, ops.param([d, d])), ops.transpose(x, [0, 2, 1])), Math.sqrt(d))));
    const f = score.at([3, d]);
    expect(f.cod).toEqual([3, 3]);
    expect(f.params.map((p) => p.shape)).toEqual([[d, d]]);
    expect(gradcheck(f, { batch: 2 }).ok).toBe(true);
    const rows = f.run(f.init(0), randn([2, 3, d], 2).to('float32'));
    for (let r = 0; r < 6; r++) expect(Array.from(rows.data.slice(3 * r, 3 * r + 3)).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });

  it('on tensors the same functions compute at once', () => {
    const a = Tensor.from([
      [1, 2],
      [3, 4],
    ]);
    expect(ops.add(a, Tensor.from([10, 20])).toArray()).toEqual([
      [11, 22],
      [13, 24],
    ]);
    expect(ops.matmul(a, a).toArray()).toEqual([
      [7, 10],
      [15, 22],
    ]);
    expect(Array.from(ops.reduceSum(a, [1], false).data)).toEqual([3, 7]);
  });

  it('a parameter outside a traced forward is refused', () => {
    expect(() => ops.param([2])).toThrow(SpecError);
  });
});

describe('operator graphs', () => {
  it('a value read three times: its gradient is the sum of the three (gradcheck)', () => {
    const g = trace((x) => ops.add(ops.mul(x, x), ops.tanh(x)), [6]);
    expect(gradcheck(g).ok).toBe(true);
    const y = g.run([], randn([2, 6], 3));
    expect(y.shape).toEqual([2, 6]);
  });

  it('a chain as a graph is the same function as the composite: graph(x >> dense >> h, h >> Relu >> y) = dense >> relu', () => {
    const g = parseSpec('graph(x >> dense(4,3) >> h, h >> Relu >> y)').at([4]);
    const f = seq(dense(4, 3), elementwise('relu'));
    expect(g.params.map((p) => p.shape)).toEqual(f.params.map((p) => p.shape));
    const theta = f.init(1, 'float64');
    const x = randn([5, 4], 2);
    expect(maxDiff(g.run(theta, x), f.run(theta, x))).toBe(0);
    expect(String(g)).toBe('graph(x >> dense(4,3) >> Relu >> y)');
  });

  it('prints as a spec that parses back to the same function (random graphs of broadcasting arithmetic)', () => {
    const unary = ['Tanh', 'Sigmoid', 'Relu', 'Exp', 'Neg', 'Erf'] as const;
    const binary = ['Add', 'Sub', 'Mul', 'Max'] as const;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(5), fc.nat(3), fc.nat(20), fc.nat(20)), { minLength: 1, maxLength: 8 }), (steps) => {
        const g = trace(
          (x) => {
            const vals = [x, ops.param([4], undefined, 'w')];
            for (const [isUnary, u, b, i, j] of steps) {
              const a = vals[i % vals.length]!,
                c = vals[j % vals.length]!;
              vals.push(isUnary ? (ops.op(unary[u % unary.length]!, [a])[0] as typeof x) : (ops.op(binary[b]!, [a, c])[0] as typeof x));
            }
            // the output reads x, so the batch comes first
            return ops.add(vals[vals.length - 1]!, x);
          },
          [4],
        );
        roundTrips(g, [4]);
        expect(gradcheck(g).ok).toBe(true);
      }),
      { numRuns: 25, seed: 11 },
    );
  });

  it('operators with attributes as layers in plain specs', () => {
    const f = parseSpec('dense(4,6) >> Erf >> Clip(min(-0.5),max(0.5)) >> LeakyRelu(alpha(0.2)) >> Softmax(axis(1))');
    expect(String(f)).toBe('dense(4,6) >> Erf >> Clip(min(-0.5),max(0.5)) >> LeakyRelu(alpha(0.2)) >> Softmax(axis(1))');
    expect(gradcheck(f).ok).toBe(true);
    roundTrips(f, [4]);
  });

  it('constants: written out when small, stored with the parameters (and not trained) when large', () => {
    const g = trace(
      (x) =>
        ops.add(
          ops.mul(x, 0.5),
          Tensor.of(
            Array.from({ length: 20 }, (_, i) => i),
            [20],
          ),
        ),
      [20],
    );
    expect(String(g)).toBe('graph(Constant(0.5) >> c, (x @ c) >> Mul >> mul, Constant(shape(20)) >> c_1, (mul @ c_1) >> Add >> add)');
    expect(g.params.map((p) => p.name)).toEqual(['c_1']);
    const theta = g.init(0, 'float64');
    expect(theta[0]!.data[19]).toBe(19);
    const lens = g.forward(theta, randn([2, 20], 1), { training: true, rng: new Rng(0), alloc: (s, d) => Tensor.zeros(s, d) });
    const dTheta = [Tensor.zeros([20], 'float64')];
    lens.pullback(randn([2, 20], 2), dTheta);
    expect(Array.from(dTheta[0]!.data).every((v) => v === 0)).toBe(true);
    roundTrips(g, [20]);
  });

  it('on a device (webgpu), the operators without kernels are named: E_DEVICE lists them', () => {
    const f = parseSpec('dense(2,3) >> Erf >> graph(x >> Relu >> r, (x @ r) >> Mul >> y) >> Sigmoid').at([2]);
    expect(hostOnlyParts(f).sort()).toEqual(['Erf', 'Mul']);
  });

  it('refuses a wire read before it is bound, a name bound twice, and a wrong number of inputs, naming them', () => {
    expect(() => parseSpec('graph(y >> Relu >> z)')).toThrow(/must end|no earlier|no box|reads/);
    expect(() => parseSpec('graph(x >> Relu >> h, x >> Tanh >> h)')).toThrow(/bound twice/);
    expect(() => parseSpec('graph((x @ x @ x) >> Mul >> y)')).toThrow(/takes 2 inputs but got 3/);
    expect(() => parseSpec('graph(x >> Softmax(axis(5)) >> y)').at([3])).toThrow(/axis 5/);
  });
});
