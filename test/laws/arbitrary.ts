import fc from 'fast-check';
import { cubicReparam, dense, elementwise, id, leakyRelu, linearReparam, par, residual, seq, softmax, tie } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { mat } from '../../src/linalg/matrix.js';

/** Coefficients of random reparameterisations: any double in [−1, 1], so printing must be exact to round-trip. */
const coefficient = fc.double({ min: -1, max: 1, noNaN: true });

/**
 * Reparameterised dense layers [a] → [b]: θ = φ + cφ³, θ = Mφ (when M, P×P for P = b(a+1),
 * stays small) and, for a square one, weights tied across a two-layer composite.
 */
function reparamArb(a: number, b: number): fc.Arbitrary<Para> {
  const P = b * (a + 1);
  return fc.oneof(
    coefficient.map((c) => cubicReparam(dense(a, b), Math.abs(c))),
    ...(P <= 12 ? [fc.array(coefficient, { minLength: P * P, maxLength: P * P }).map((m) => linearReparam(dense(a, b), mat(P, P, m)))] : []),
    ...(a === b
      ? [
          fc
            .constantFrom(
              [[0, 2]],
              [[1, 3]],
              [
                [0, 2],
                [1, 3],
              ],
              [[2, 0]],
            )
            .map((groups) => tie(seq(dense(a, a), elementwise('tanh'), dense(a, a)), groups)),
        ]
      : []),
  );
}

/**
 * A random morphism [a] → [b] built from the library's primitives and combinators; with
 * `reparams`, reparameterisations (tie, cubic, linear) among them, leaves and composites.
 */
export function morphismArb(a: number, b: number, depth = 2, opts: { reparams?: boolean } = {}): fc.Arbitrary<Para> {
  const leaf = fc.oneof(
    fc.constant(dense(a, b)),
    ...(opts.reparams ? [reparamArb(a, b)] : []),
    ...(a === b
      ? [
          fc.constantFrom<Para>(
            elementwise('sigmoid', [a]),
            elementwise('tanh', [a]),
            elementwise('gelu', [a]),
            elementwise('softplus', [a]),
            leakyRelu(0.2, [a]),
            softmax([a]),
            id(a),
          ),
          fc.constant(residual(seq(dense(a, a), elementwise('tanh')))),
        ]
      : []),
  );
  if (depth <= 0) return leaf;
  const sub = (x: number, y: number): fc.Arbitrary<Para> => morphismArb(x, y, depth - 1, opts);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    ...(opts.reparams ? [{ weight: 1, arbitrary: fc.tuple(sub(a, b), coefficient).map(([f, c]) => cubicReparam(f, Math.abs(c))) }] : []),
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }).chain((m) => fc.tuple(sub(a, m), sub(m, b)).map(([f, g]) => seq(f, g))) },
    {
      weight: 1,
      arbitrary:
        a >= 2 && b >= 2
          ? fc
              .tuple(fc.integer({ min: 1, max: a - 1 }), fc.integer({ min: 1, max: b - 1 }))
              .chain(([a1, b1]) => fc.tuple(sub(a1, b1), sub(a - a1, b - b1)).map(([f, g]) => par(f, g)))
          : leaf,
    },
  );
}

export const sizes = fc.integer({ min: 1, max: 4 });

/** What a morphism is made of, as plain data: its kind, arguments, children, parameters (names and shapes) and shapes. */
export interface Structure {
  kind: string;
  args: readonly (number | string)[];
  children: Structure[];
  params: string[];
  dom: readonly number[] | undefined;
  cod: readonly number[] | undefined;
}

export function structure(f: Para): Structure {
  return {
    kind: f.kind,
    args: f.args,
    children: f.children.map(structure),
    params: f.params.map((p) => `${p.name}[${p.shape.join(',')}]`),
    dom: f.dom,
    cod: f.cod,
  };
}
