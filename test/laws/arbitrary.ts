import fc from 'fast-check';
import { dense, elementwise, id, leakyRelu, par, parseSpec, residual, seq, softmax, tie } from '../../src/index.js';
import type { Para } from '../../src/index.js';

/** A random morphism [a] → [b] built from the library's primitives and combinators. */
export function morphismArb(a: number, b: number, depth = 2): fc.Arbitrary<Para> {
  const leaf = fc.oneof(
    fc.constant(dense(a, b)),
    ...(a === b
      ? [
          fc.constantFrom<Para>(
            elementwise('sigmoid', [a]), elementwise('tanh', [a]), elementwise('gelu', [a]), elementwise('softplus', [a]),
            leakyRelu(0.2, [a]), softmax([a]), id(a),
          ),
          fc.constant(residual(seq(dense(a, a), elementwise('tanh')))),
        ]
      : []),
  );
  if (depth <= 0) return leaf;
  const sub = (x: number, y: number): fc.Arbitrary<Para> => morphismArb(x, y, depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 4 }).chain((m) => fc.tuple(sub(a, m), sub(m, b)).map(([f, g]) => seq(f, g))) },
    {
      weight: 1,
      arbitrary:
        a >= 2 && b >= 2
          ? fc.tuple(fc.integer({ min: 1, max: a - 1 }), fc.integer({ min: 1, max: b - 1 })).chain(([a1, b1]) =>
              fc.tuple(sub(a1, b1), sub(a - a1, b - b1)).map(([f, g]) => par(f, g)),
            )
          : leaf,
    },
  );
}

export const sizes = fc.integer({ min: 1, max: 4 });

/** Random morphisms round-trip through their spec strings. */
export const reparse = (f: Para): Para => parseSpec(String(f));
export { tie };
