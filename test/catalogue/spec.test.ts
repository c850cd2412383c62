import { describe, expect, it } from 'vitest';
import {
  cubicReparam,
  dense,
  linearReparam,
  par,
  ParalensError,
  parseSpec,
  printSpec,
  reparam,
  seq,
  ShapeError,
  sigmoid,
  SpecError,
  Tensor,
  tie,
} from '../../src/index.js';
import { encodeModel, FileFormatError } from '../../src/io/index.js';
import type { Para } from '../../src/index.js';
import { mat } from '../../src/linalg/matrix.js';
import { structure } from '../laws/arbitrary.js';

describe('model spec strings', () => {
  it('parse to the same morphism the API builds, and print back', () => {
    const spec = 'dense(2,4) >> sigmoid >> dense(4,1) >> sigmoid';
    const f = parseSpec(spec);
    const g = seq(dense(2, 4), sigmoid(), dense(4, 1), sigmoid());
    expect(String(f)).toBe(spec);
    expect(String(g)).toBe(spec);
    expect(f.dom).toEqual([2]);
    expect(f.cod).toEqual([1]);
    const theta = g.init(5);
    const x = Tensor.from([
      [0.5, -1],
      [2, 0],
    ]);
    expect(Array.from(f.run(theta, x).data)).toEqual(Array.from(g.run(theta, x).data));
  });

  it('@ binds tighter than >> and parentheses group', () => {
    const f = parseSpec('dense(2,3) @ dense(1,1) >> dense(4,2)');
    expect(f.kind).toBe('seq');
    expect(f.children[0]!.kind).toBe('par');
    expect(String(f)).toBe('(dense(2,3) @ dense(1,1)) >> dense(4,2)');
    const g = parseSpec('dense(3,2) @ (dense(1,2) >> relu)');
    expect(g.dom).toEqual([4]);
    expect(g.cod).toEqual([4]);
    expect(String(g)).toBe('dense(3,2) @ (dense(1,2) >> relu)');
  });

  it('infers the sizes of shape-polymorphic layers from their neighbours', () => {
    expect(parseSpec('relu >> dense(3,1)').dom).toBeUndefined();
    expect(parseSpec('dense(2,5) >> relu >> softmax').cod).toEqual([5]);
    expect(parseSpec('dense(2,4) >> (sigmoid(2) @ tanh(2))').cod).toEqual([4]);
    expect(parseSpec('residual(dense(3,3) >> tanh)').dom).toEqual([3]);
    expect(String(parseSpec('copy(3) >> (dense(3,2) @ dense(3,2)) >> add(2)'))).toBe('copy(3) >> (dense(3,2) @ dense(3,2)) >> add(2)');
  });

  it('shapes that do not compose throw a ShapeError naming both sides', () => {
    expect(() => parseSpec('dense(2,4) >> dense(3,1)')).toThrow(ShapeError);
    expect(() => parseSpec('dense(2,4) >> dense(3,1)')).toThrow('dense(3,1) expects [*,3] but got [*,4] from dense(2,4)');
    expect(() => parseSpec('residual(dense(3,2))')).toThrow(/residual\(dense\(3,2\)\) needs f: A → A/);
    expect(() => parseSpec('dense(2,4) >> (sigmoid @ tanh)')).toThrow(/cannot split \[\*,4\]/);
  });

  it('syntax errors point at the column', () => {
    const cases: [string, RegExp][] = [
      ['dense(2,4) >> >> sigmoid', /expected a layer name but found '>>' at column 15/],
      ['dense(2,4', /expected '\)' but found the end at column 10/],
      ['dense(2,4) sigmoid', /unexpected 'sigmoid' at column 12/],
      ['dense(2,4) >> sigmod', /unknown layer 'sigmod' at column 15 \(did you mean 'sigmoid'\?\); known: .*sigmoid/],
      ['dense(2)', /dense takes 2 argument\(s\)/],
      ['dense(2,x)', /dense expects a number as argument 2 but got 'x'/],
      ['dense(2,1.5)', /expects an integer as argument 2/],
      ['dense(2,4) $ relu', /unexpected '\$' at column 12/],
      ['', /empty model spec/],
      ['dense(0,4)', /positive integer sizes/],
    ];
    for (const [src, re] of cases) {
      let err: unknown;
      try {
        parseSpec(src);
      } catch (e) {
        err = e;
      }
      expect(err, src).toBeInstanceOf(Error);
      expect((err as Error).name === 'SpecError' || (err as Error).name === 'RangeArgError', src).toBe(true);
      expect((err as Error).message, src).toMatch(re);
    }
    expect(() => parseSpec('relu >>')).toThrow(SpecError);
  });
});

describe('reparameterisations as spec strings', () => {
  const tied = tie(par(dense(3, 3), dense(3, 3)), [
    [0, 2],
    [1, 3],
  ]);

  it('tie, cubic and linear print as reparam(f, map) and parse back to the same structure and values', () => {
    const M = mat(4, 4, [1, 0.5, 0, 0, 0, 1, 0, 0, -0.25, 0, 1, 0, 0, 0, 1e-300, 1]);
    const cases: [Para, string][] = [
      [tied, 'reparam(dense(3,3) @ dense(3,3), tie((0,2),(1,3)))'],
      [cubicReparam(seq(dense(2, 2), sigmoid()), 0.125), 'reparam(dense(2,2) >> sigmoid, cubic(0.125))'],
      [linearReparam(dense(1, 2), M), 'reparam(dense(1,2), linear((1,0.5,0,0),(0,1,0,0),(-0.25,0,1,0),(0,0,1e-300,1)))'],
    ];
    for (const [f, spec] of cases) {
      expect(String(f)).toBe(spec);
      const g = parseSpec(spec);
      expect(structure(g)).toEqual(structure(f));
      expect(structure(g)).toMatchObject({ kind: 'reparam', args: [spec.slice(spec.lastIndexOf(', ') + 2, -1)] });
      const theta = f.init(4, 'float64');
      const d = f.dom![0]!;
      const x = Tensor.of(
        Array.from({ length: 2 * d }, (_, i) => Math.sin(i + 1)),
        [2, d],
        'float64',
      );
      expect(Array.from(g.run(theta, x).data)).toEqual(Array.from(f.run(theta, x).data));
    }
  });

  it("a tied parameter is one tensor: the tied net has the free net's values with W₁ = W₂ and b₁ = b₂", () => {
    const q = tied.init(2, 'float64');
    expect(tied.params.map((p) => `${p.name}[${p.shape}]`)).toEqual(['tied0[3,3]', 'tied1[3]']);
    const free = par(dense(3, 3), dense(3, 3));
    const x = Tensor.of([1, 2, 3, -1, 0.5, 0], [1, 6], 'float64');
    expect(Array.from(tied.run(q, x).data)).toEqual(Array.from(free.run([q[0]!, q[1]!, q[0]!, q[1]!], x).data));
  });

  it('bad maps are refused with a message naming the map and what was expected', () => {
    const cases: [string, RegExp][] = [
      ['reparam(dense(1,1), spline(3))', /unknown parameter map 'spline'; known: tie, cubic, linear/],
      ['reparam(dense(1,1), tie((0,5)))', /tie\(\(0,5\)\): 5 is not a parameter index of dense\(1,1\); expected an integer from 0 to 1/],
      ['reparam(dense(2,2), tie((0,1)))', /tie: bias and weight have different shapes/],
      ['reparam(dense(2,2), tie((0,0)))', /parameter 0 is listed twice/],
      ['reparam(dense(1,1), tie(0,1))', /tie takes groups like \(0,2\)/],
      ['reparam(dense(1,1), cubic(x))', /parameter map 'cubic\(x\)': expected a number or '\(' but found 'x'/],
      ['reparam(dense(1,1), linear((1,0,0),(0,1,0),(0,0,1)))', /dense\(1,1\) has 2 parameters, so θ = Mφ needs M 2×2, but got 3×3/],
      ['reparam(dense(1,1), linear((1,0),(0)))', /M must be square, but its rows have lengths 2, 1/],
      ['reparam(dense(1,1))', /reparam takes 2 argument/],
    ];
    for (const [src, re] of cases) {
      let err: unknown;
      try {
        parseSpec(src);
      } catch (e) {
        err = e;
      }
      expect(err, src).toBeInstanceOf(ParalensError);
      expect((err as Error).message, src).toMatch(re);
    }
  });

  it('a reparam by a map given in code prints by its name but refuses to print as a spec, and cannot be saved', () => {
    const f = dense(2, 2);
    const positive = reparam(f, {
      name: 'softplus-weights',
      params: f.params,
      map: (q) => ({ p: [...q], pullback: () => undefined }),
    });
    expect(String(positive)).toBe('reparam(dense(2,2), softplus-weights)');
    expect(() => printSpec(positive)).toThrow(SpecError);
    expect(() => printSpec(seq(positive, sigmoid()))).toThrow(
      /reparam\(dense\(2,2\), softplus-weights\) >> sigmoid has no spec string: its parameter map 'softplus-weights' in reparam\(dense\(2,2\), softplus-weights\) was given in code; spec strings write only tie/,
    );
    expect(printSpec(tied)).toBe(String(tied));
    expect(() => encodeModel(positive, positive.init(0))).toThrow(FileFormatError);
    expect(() => encodeModel(positive, positive.init(0))).toThrow(/cannot save the model: .*softplus-weights.*was given in code/);
    expect(encodeModel(tied, tied.init(0)).length).toBeGreaterThan(0);
  });
});
