import { describe, expect, it } from 'vitest';
import { dense, parseSpec, seq, ShapeError, sigmoid, SpecError, Tensor } from '../../src/index.js';

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
    const x = Tensor.from([[0.5, -1], [2, 0]]);
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
      ['dense(2,4) >> sigmod', /unknown layer 'sigmod' at column 15; known: .*sigmoid/],
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
