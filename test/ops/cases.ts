import fc from 'fast-check';
import { Rng, Tensor } from '../../src/index.js';
import type { Attrs } from '../../src/ops/index.js';

/**
 * Random instances of every operator of the vocabulary: shapes, attributes and inputs drawn by
 * fast-check (values from a seeded generator, so a failure shrinks to a small shape and
 * replays). Inputs stay away from an operator's kinks and poles (√, log and 1/x see positive
 * inputs, divisors stay off zero), where a finite difference is not a derivative.
 */
export interface OpCase {
  readonly name: string;
  readonly attrs: Attrs;
  readonly inputs: readonly Tensor[];
}

type Values = 'normal' | 'positive' | 'nonzero' | 'ids';

/** A float64 tensor of this shape; `ids` draws integers below `bound`. */
export function tensorOf(shape: readonly number[], seed: number, values: Values = 'normal', bound = 4): Tensor {
  const rng = new Rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const draw = (): number => {
    const z = rng.normal();
    if (values === 'positive') return 0.5 + Math.abs(z);
    if (values === 'nonzero') return Math.sign(z || 1) * (0.5 + Math.abs(z));
    if (values === 'ids') return rng.int(bound);
    return z;
  };
  return Tensor.of(Array.from({ length: n }, draw), shape, 'float64');
}

const dim = fc.integer({ min: 1, max: 4 });
const shapeArb = (minRank = 1, maxRank = 4): fc.Arbitrary<number[]> => fc.array(dim, { minLength: minRank, maxLength: maxRank });
const seed = fc.integer({ min: 1, max: 2 ** 30 });

/** A shape and a second one that broadcasts against it (leading axes dropped, some sizes 1). */
const broadcastPair = fc
  .tuple(shapeArb(1, 4), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), fc.integer({ min: 0, max: 3 }))
  .map(([s, ones, drop]) => {
    const t = s.slice(Math.min(drop, s.length - 1)).map((d, i) => (ones[i] ? 1 : d));
    return [s, t] as const;
  });

const unary = (name: string, values: Values = 'normal', attrs: fc.Arbitrary<Attrs> = fc.constant({})): fc.Arbitrary<OpCase> =>
  fc.tuple(shapeArb(), seed, attrs).map(([s, k, a]) => ({ name, attrs: a, inputs: [tensorOf(s, k, values)] }));

const binary = (name: string, va: Values = 'normal', vb: Values = 'normal'): fc.Arbitrary<OpCase> =>
  fc.tuple(broadcastPair, seed, fc.boolean()).map(([[s, t], k, swap]) => {
    const [a, b] = swap ? [t, s] : [s, t];
    return { name, attrs: {}, inputs: [tensorOf(a, k, va), tensorOf(b, k + 1, vb)] };
  });

const axisOf = (rank: number): fc.Arbitrary<number> => fc.integer({ min: -rank, max: rank - 1 });

const variadic = (name: string): fc.Arbitrary<OpCase> =>
  fc.tuple(shapeArb(1, 3), fc.integer({ min: 1, max: 4 }), seed).map(([s, n, k]) => ({
    name,
    attrs: {},
    inputs: Array.from({ length: n }, (_, i) => tensorOf(i % 2 ? (s.slice(1).length ? s.slice(1) : s) : s, k + i)),
  }));

const reduce = (name: string, values: Values = 'normal'): fc.Arbitrary<OpCase> =>
  shapeArb(1, 4).chain((s) =>
    fc.tuple(fc.subarray([...s.keys()]), fc.integer({ min: 0, max: 1 }), seed).map(([axes, keepdims, k]) => ({
      name,
      attrs: { axes, keepdims },
      inputs: [tensorOf(s, k, values)],
    })),
  );

/** A window: kernel, strides, dilations and pads that fit an input of size n along each spatial axis. */
const windowArb = (rank: 1 | 2, maxPadOfKernel: boolean) =>
  fc
    .tuple(
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: rank, maxLength: rank }),
      fc.array(fc.integer({ min: 1, max: 2 }), { minLength: rank, maxLength: rank }),
      fc.array(fc.integer({ min: 1, max: 2 }), { minLength: rank, maxLength: rank }),
      fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 2 * rank, maxLength: 2 * rank }),
    )
    .map(([k, s, d, p]) => ({
      kernel_shape: k,
      strides: s,
      dilations: d,
      // pooling: a pad below the kernel (ONNX and PyTorch need the window to see the image)
      pads: maxPadOfKernel ? p.map((v, i) => Math.min(v, k[i % rank]! - 1)) : p,
    }));

const spatial = (rank: 1 | 2): fc.Arbitrary<number[]> => fc.array(fc.integer({ min: 5, max: 7 }), { minLength: rank, maxLength: rank });

const conv: fc.Arbitrary<OpCase> = fc.constantFrom<1 | 2>(1, 2).chain((rank) =>
  fc
    .tuple(
      windowArb(rank, false),
      spatial(rank),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 1, max: 2 }),
      fc.boolean(),
      seed,
    )
    .map(([w, sp, groups, cg, og, bias, k]) => {
      const C = groups * cg,
        O = groups * og;
      const inputs = [tensorOf([2, C, ...sp], k), tensorOf([O, cg, ...w.kernel_shape], k + 1), ...(bias ? [tensorOf([O], k + 2)] : [])];
      return { name: 'Conv', attrs: { ...w, group: groups }, inputs };
    }),
);

const convTranspose: fc.Arbitrary<OpCase> = fc.constantFrom<1 | 2>(1, 2).chain((rank) =>
  fc
    .tuple(
      windowArb(rank, true),
      fc.array(fc.integer({ min: 2, max: 4 }), { minLength: rank, maxLength: rank }),
      fc.integer({ min: 1, max: 2 }),
      fc.boolean(),
      fc.nat(1),
      seed,
    )
    .map(([w, sp, groups, bias, extra, k]) => {
      const C = 2 * groups,
        O = groups;
      const outPad = w.strides.map((s, i) => Math.min(extra, s - 1, w.dilations[i]! - 1 + s - 1));
      const inputs = [tensorOf([2, C, ...sp], k), tensorOf([C, O / groups, ...w.kernel_shape], k + 1), ...(bias ? [tensorOf([O], k + 2)] : [])];
      return { name: 'ConvTranspose', attrs: { ...w, group: groups, output_padding: outPad }, inputs };
    }),
);

const pool = (name: string, extra: fc.Arbitrary<Attrs>): fc.Arbitrary<OpCase> =>
  fc.constantFrom<1 | 2>(1, 2).chain((rank) =>
    fc.tuple(windowArb(rank, true), spatial(rank), fc.integer({ min: 0, max: 1 }), extra, seed).map(([w, sp, ceil, a, k]) => ({
      name,
      attrs: { ...w, ...(name === 'AveragePool' ? { dilations: w.dilations.map(() => 1) } : {}), ceil_mode: ceil, ...a },
      inputs: [tensorOf([2, 2, ...sp], k)],
    })),
  );

const matmul: fc.Arbitrary<OpCase> = fc
  .tuple(fc.array(dim, { maxLength: 2 }), dim, dim, dim, fc.constantFrom('both', 'left', 'right', 'vecA', 'vecB'), seed)
  .map(([batch, m, k, n, form, s]) => {
    const a = form === 'vecA' ? [k] : form === 'right' ? [m, k] : [...batch, m, k];
    const b = form === 'vecB' ? [k] : form === 'left' ? [k, n] : [...batch.map((d, i) => (i === 0 ? 1 : d)), k, n];
    return { name: 'MatMul', attrs: {}, inputs: [tensorOf(a, s), tensorOf(b, s + 1)] };
  });

const gemm: fc.Arbitrary<OpCase> = fc
  .tuple(
    dim,
    dim,
    dim,
    fc.integer({ min: 0, max: 1 }),
    fc.integer({ min: 0, max: 1 }),
    fc.constantFrom('none', 'row', 'full', 'col'),
    fc.double({ min: 0.5, max: 2, noNaN: true }),
    fc.double({ min: 0.5, max: 2, noNaN: true }),
    seed,
  )
  .map(([M, K, N, tA, tB, c, alpha, beta, s]) => {
    const inputs = [tensorOf(tA ? [K, M] : [M, K], s), tensorOf(tB ? [N, K] : [K, N], s + 1)];
    if (c !== 'none') inputs.push(tensorOf(c === 'row' ? [N] : c === 'col' ? [M, 1] : [M, N], s + 2));
    return { name: 'Gemm', attrs: { transA: tA, transB: tB, alpha, beta }, inputs };
  });

const einsum: fc.Arbitrary<OpCase> = fc
  .tuple(
    fc.constantFrom(
      [
        'bij,bjk',
        'bik',
        [
          [2, 3, 4],
          [2, 4, 2],
        ],
      ],
      [
        'bhid,bhjd',
        'bhij',
        [
          [2, 2, 3, 4],
          [2, 2, 2, 4],
        ],
      ],
      [
        'bti,ijk',
        'btjk',
        [
          [2, 3, 4],
          [4, 2, 3],
        ],
      ],
      ['ij,j', 'i', [[3, 4], [4]]],
      ['bij', 'bji', [[2, 3, 4]]],
      ['bij', 'b', [[2, 3, 4]]],
      [
        'bi,bj',
        'bij',
        [
          [2, 3],
          [2, 4],
        ],
      ],
      [
        'b_i,ij',
        'b_j',
        [
          [2, 3, 4],
          [4, 2],
        ],
      ],
      [
        'bi,ij,jk',
        'bk',
        [
          [2, 3],
          [3, 4],
          [4, 2],
        ],
      ],
    ),
    seed,
  )
  .map(([[ins, out, shapes], s]) => ({
    name: 'Einsum',
    attrs: { inputs: ins, output: out },
    inputs: (shapes as unknown as number[][]).map((sh, i) => tensorOf(sh, s + i)),
  }));

const positiveUnit = fc.double({ min: 0.1, max: 0.9, noNaN: true });

/** Every operator of the vocabulary with its arbitrary. */
export const OP_CASES: Readonly<Record<string, fc.Arbitrary<OpCase>>> = {
  Identity: unary('Identity'),
  Neg: unary('Neg'),
  Abs: unary('Abs', 'nonzero'),
  Sqrt: unary('Sqrt', 'positive'),
  Exp: unary('Exp'),
  Log: unary('Log', 'positive'),
  Reciprocal: unary('Reciprocal', 'nonzero'),
  Sin: unary('Sin'),
  Cos: unary('Cos'),
  Erf: unary('Erf'),
  Tanh: unary('Tanh'),
  Sigmoid: unary('Sigmoid'),
  Relu: unary('Relu', 'nonzero'),
  LeakyRelu: unary(
    'LeakyRelu',
    'nonzero',
    positiveUnit.map((alpha) => ({ alpha })),
  ),
  Elu: unary(
    'Elu',
    'nonzero',
    positiveUnit.map((alpha) => ({ alpha })),
  ),
  Celu: unary(
    'Celu',
    'nonzero',
    positiveUnit.map((alpha) => ({ alpha })),
  ),
  Selu: unary('Selu', 'nonzero'),
  Gelu: unary('Gelu', 'normal', fc.constantFrom({ approximate: 'none' }, { approximate: 'tanh' })),
  HardSigmoid: unary('HardSigmoid', 'normal', fc.record({ alpha: positiveUnit, beta: positiveUnit })),
  HardSwish: unary('HardSwish'),
  Softplus: unary('Softplus'),
  Softsign: unary('Softsign', 'nonzero'),
  Mish: unary('Mish'),
  Clip: unary('Clip', 'normal', fc.constantFrom<Attrs>({ min: -0.5, max: 0.7 }, { min: 0 }, { max: 6 })),
  Floor: unary('Floor'),
  Ceil: unary('Ceil'),
  Round: unary('Round'),
  Sign: unary('Sign', 'nonzero'),
  Not: unary('Not', 'ids'),
  IsNaN: unary('IsNaN'),
  Cast: unary('Cast', 'normal', fc.constantFrom({ to: 'float' }, { to: 'int64' }, { to: 'bool' }, { to: 'double' })),
  Add: binary('Add'),
  Sub: binary('Sub'),
  Mul: binary('Mul'),
  Div: binary('Div', 'normal', 'nonzero'),
  Pow: binary('Pow', 'positive', 'normal'),
  PRelu: binary('PRelu', 'nonzero'),
  Equal: binary('Equal', 'ids', 'ids'),
  Less: binary('Less'),
  LessOrEqual: binary('LessOrEqual'),
  Greater: binary('Greater'),
  GreaterOrEqual: binary('GreaterOrEqual'),
  And: binary('And', 'ids', 'ids'),
  Or: binary('Or', 'ids', 'ids'),
  Xor: binary('Xor', 'ids', 'ids'),
  Sum: variadic('Sum'),
  Mean: variadic('Mean'),
  Max: variadic('Max'),
  Min: variadic('Min'),
  Where: fc
    .tuple(broadcastPair, seed)
    .map(([[s, t], k]) => ({ name: 'Where', attrs: {}, inputs: [tensorOf(t, k, 'ids', 2), tensorOf(s, k + 1), tensorOf(t, k + 2)] })),
  MatMul: matmul,
  Gemm: gemm,
  Einsum: einsum,
  ReduceSum: reduce('ReduceSum'),
  ReduceMean: reduce('ReduceMean'),
  ReduceMax: reduce('ReduceMax'),
  ReduceMin: reduce('ReduceMin'),
  ReduceProd: reduce('ReduceProd'),
  ReduceL1: reduce('ReduceL1', 'nonzero'),
  ReduceL2: reduce('ReduceL2'),
  ReduceSumSquare: reduce('ReduceSumSquare'),
  ReduceLogSumExp: reduce('ReduceLogSumExp'),
  Softmax: shapeArb(1, 4).chain((s) => fc.tuple(axisOf(s.length), seed).map(([axis, k]) => ({ name: 'Softmax', attrs: { axis }, inputs: [tensorOf(s, k)] }))),
  LogSoftmax: shapeArb(1, 4).chain((s) =>
    fc.tuple(axisOf(s.length), seed).map(([axis, k]) => ({ name: 'LogSoftmax', attrs: { axis }, inputs: [tensorOf(s, k)] })),
  ),
  Conv: conv,
  ConvTranspose: convTranspose,
  MaxPool: pool('MaxPool', fc.constant({})),
  AveragePool: pool(
    'AveragePool',
    fc.integer({ min: 0, max: 1 }).map((c) => ({ count_include_pad: c })),
  ),
  GlobalAveragePool: fc
    .tuple(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 4 }), seed)
    .map(([s, k]) => ({ name: 'GlobalAveragePool', attrs: {}, inputs: [tensorOf(s, k)] })),
  GlobalMaxPool: fc
    .tuple(fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 4 }), seed)
    .map(([s, k]) => ({ name: 'GlobalMaxPool', attrs: {}, inputs: [tensorOf(s, k)] })),
  BatchNormalization: fc.tuple(shapeArb(2, 4), seed, fc.double({ min: 1e-5, max: 1e-2, noNaN: true })).map(([s, k, epsilon]) => {
    const C = [s[1]!];
    return {
      name: 'BatchNormalization',
      attrs: { epsilon },
      inputs: [tensorOf(s, k), tensorOf(C, k + 1), tensorOf(C, k + 2), tensorOf(C, k + 3), tensorOf(C, k + 4, 'positive')],
    };
  }),
  LayerNormalization: shapeArb(1, 4).chain((s) =>
    fc.tuple(fc.integer({ min: 0, max: s.length - 1 }), fc.boolean(), fc.boolean(), seed).map(([axis, bias, small, k]) => {
      const inner = s.slice(axis);
      const p = small ? inner.map((d, i) => (i === 0 ? 1 : d)) : inner;
      return { name: 'LayerNormalization', attrs: { axis }, inputs: [tensorOf(s, k), tensorOf(p, k + 1), ...(bias ? [tensorOf(p, k + 2)] : [])] };
    }),
  ),
  Dropout: unary(
    'Dropout',
    'normal',
    positiveUnit.map((ratio) => ({ ratio })),
  ),
  Reshape: shapeArb(1, 4).chain((s) =>
    fc.tuple(fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length }), fc.integer({ min: 0, max: 3 }), seed).map(([t, free, k]) => {
      const target = t.map((d, i) => (i === free ? -1 : d));
      return { name: 'Reshape', attrs: { shape: target }, inputs: [tensorOf(s, k)] };
    }),
  ),
  Flatten: shapeArb(1, 4).chain((s) =>
    fc.tuple(fc.integer({ min: 0, max: s.length }), seed).map(([axis, k]) => ({ name: 'Flatten', attrs: { axis }, inputs: [tensorOf(s, k)] })),
  ),
  Squeeze: fc.tuple(shapeArb(1, 3), fc.integer({ min: 0, max: 3 }), seed).map(([s, at, k]) => {
    const t = [...s];
    t.splice(Math.min(at, t.length), 0, 1);
    return { name: 'Squeeze', attrs: { axes: [Math.min(at, s.length)] }, inputs: [tensorOf(t, k)] };
  }),
  Unsqueeze: fc
    .tuple(shapeArb(1, 3), fc.integer({ min: -1, max: 3 }), seed)
    .map(([s, at, k]) => ({ name: 'Unsqueeze', attrs: { axes: [Math.min(at, s.length)] }, inputs: [tensorOf(s, k)] })),
  Transpose: shapeArb(1, 4).chain((s) =>
    fc
      .tuple(fc.shuffledSubarray([...s.keys()], { minLength: s.length, maxLength: s.length }), seed)
      .map(([perm, k]) => ({ name: 'Transpose', attrs: { perm }, inputs: [tensorOf(s, k)] })),
  ),
  Expand: fc.tuple(broadcastPair, seed).map(([[s, t], k]) => ({ name: 'Expand', attrs: { shape: s }, inputs: [tensorOf(t, k)] })),
  Concat: shapeArb(1, 3).chain((s) =>
    fc.tuple(axisOf(s.length), fc.array(dim, { minLength: 1, maxLength: 3 }), seed).map(([axis, sizes, k]) => ({
      name: 'Concat',
      attrs: { axis },
      inputs: sizes.map((n, i) =>
        tensorOf(
          s.map((d, j) => (j === (axis + s.length) % s.length ? n : d)),
          k + i,
        ),
      ),
    })),
  ),
  Split: shapeArb(1, 3).chain((s) =>
    fc.tuple(fc.integer({ min: 0, max: s.length - 1 }), fc.array(dim, { minLength: 1, maxLength: 3 }), seed).map(([axis, sizes, k]) => ({
      name: 'Split',
      attrs: { axis, split: sizes },
      inputs: [
        tensorOf(
          s.map((d, j) => (j === axis ? sizes.reduce((a, b) => a + b, 0) : d)),
          k,
        ),
      ],
    })),
  ),
  Slice: shapeArb(1, 3).chain((s) =>
    fc
      .tuple(fc.integer({ min: 0, max: s.length - 1 }), fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 9 }), fc.constantFrom(1, 2, -1, -2), seed)
      .map(([axis, start, end, step, k]) => ({
        name: 'Slice',
        attrs: { starts: [start], ends: [end], axes: [axis], steps: [step] },
        inputs: [
          tensorOf(
            s.map((d) => d + 2),
            k,
          ),
        ],
      })),
  ),
  Gather: shapeArb(1, 3).chain((s) =>
    fc.tuple(fc.integer({ min: 0, max: s.length - 1 }), shapeArb(0, 2), seed).map(([axis, is, k]) => ({
      name: 'Gather',
      attrs: { axis },
      inputs: [tensorOf(s, k), tensorOf(is, k + 1, 'ids', s[axis]!)],
    })),
  ),
  Tile: shapeArb(1, 3).chain((s) =>
    fc
      .tuple(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: s.length, maxLength: s.length }), seed)
      .map(([repeats, k]) => ({ name: 'Tile', attrs: { repeats }, inputs: [tensorOf(s, k)] })),
  ),
  Pad: shapeArb(1, 3).chain((s) =>
    fc
      .tuple(
        fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 2 * s.length, maxLength: 2 * s.length }),
        fc.constantFrom('constant', 'reflect', 'edge', 'wrap'),
        seed,
      )
      .map(([pads, mode, k]) => {
        const big = s.map((d) => d + 3);
        return { name: 'Pad', attrs: { pads, mode, value: 0.5 }, inputs: [tensorOf(big, k)] };
      }),
  ),
  Trilu: fc
    .tuple(shapeArb(2, 3), fc.integer({ min: 0, max: 1 }), fc.integer({ min: -2, max: 2 }), seed)
    .map(([s, upper, kk, k]) => ({ name: 'Trilu', attrs: { upper, k: kk }, inputs: [tensorOf(s, k)] })),
  Shape: unary('Shape'),
  ConstantOfShape: fc
    .tuple(shapeArb(1, 3), fc.double({ min: -2, max: 2, noNaN: true }))
    .map(([s, value]) => ({ name: 'ConstantOfShape', attrs: { shape: s, value }, inputs: [] })),
  Range: fc
    .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom(1, 2, 0.5))
    .map(([start, n, delta]) => ({ name: 'Range', attrs: { start, limit: start + n, delta }, inputs: [] })),
};
