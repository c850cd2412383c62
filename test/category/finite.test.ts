import { describe, expect, it } from 'vitest';
import { categoryFromGraph, categoryFromMonoid, categoryFromPoset, checkCategory, finiteCategory, parsePoset, ToposError } from '../../src/category/index.js';

describe('finite categories', () => {
  it('a poset: one arrow a → b exactly when a ≤ b', () => {
    const C = parsePoset('a<b, a<c');
    expect(C.objects).toEqual(['a', 'b', 'c']);
    expect(C.arrows.length).toBe(5); // 3 identities + a≤b + a≤c
    expect(C.hom(C.object('a'), C.object('b')).length).toBe(1);
    expect(C.hom(C.object('b'), C.object('c')).length).toBe(0);
    expect(C.isThin()).toBe(true);
    // transitive closure of a chain
    const D = parsePoset('0<1<2');
    expect(D.arrows.length).toBe(6);
    const f = D.arrow('0≤1');
    const g = D.arrow('1≤2');
    expect(D.arrows[D.compose(g, f)]!.name).toBe('0≤2');
    expect(D.compositionTable()[g]![f]).toBe('0≤2');
    expect(() => D.compose(f, g)).toThrow(ToposError);
  });

  it('rejects a relation that is not antisymmetric, naming the pair', () => {
    expect(() => parsePoset('a<b, b<a')).toThrow(/not antisymmetric: a ≤ b and b ≤ a/);
    expect(() => categoryFromPoset(['x', 'y'], (a, b) => a === b || (a === 0 && b === 1) || (a === 1 && b === 0))).toThrow(ToposError);
  });

  it('a monoid: Z/3 under addition and the idempotent monoid {1, e}', () => {
    const Z3 = categoryFromMonoid(
      ['0', '1', '2'],
      [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
      ],
    );
    expect(Z3.objects).toEqual(['*']);
    expect(Z3.arrows[Z3.compose(1, 2)]!.name).toBe('0');
    const E = categoryFromMonoid(
      ['1', 'e'],
      [
        [0, 1],
        [1, 1],
      ],
    );
    expect(E.compose(1, 1)).toBe(1);
    expect(() =>
      categoryFromMonoid(
        ['a', 'b'],
        [
          [1, 1],
          [1, 1],
        ],
      ),
    ).toThrow(/no identity/);
  });

  it('a non-associative table is rejected, naming the arrows', () => {
    // elements 0 (unit), a, b with a·a = b, a·b = a, b·a = b, b·b = a: (a·a)·a = b·a = b but a·(a·a) = a·b = a
    expect(() =>
      categoryFromMonoid(
        ['1', 'a', 'b'],
        [
          [0, 1, 2],
          [1, 2, 1],
          [2, 2, 1],
        ],
      ),
    ).toThrow(/associativity fails/);
  });

  it('a graph with a path relation: the commutative square has one diagonal', () => {
    const V = ['A', 'B', 'C', 'D'];
    const E = [
      { name: 'f', src: 'A', tgt: 'B' },
      { name: 'g', src: 'B', tgt: 'D' },
      { name: 'h', src: 'A', tgt: 'C' },
      { name: 'k', src: 'C', tgt: 'D' },
    ];
    const free = categoryFromGraph(V, E);
    expect(free.hom(0, 3).length).toBe(2); // f.g and h.k
    expect(free.isThin()).toBe(false);
    const square = categoryFromGraph(V, E, [
      [
        ['f', 'g'],
        ['h', 'k'],
      ],
    ]);
    expect(square.hom(0, 3).length).toBe(1);
    expect(square.arrows.length).toBe(4 + 4 + 1);
    expect(square.isThin()).toBe(true);
    checkCategory(square);
  });

  it('a cyclic graph made finite by a relation: the loop e with e.e = e', () => {
    const C = categoryFromGraph(['*'], [{ name: 'e', src: '*', tgt: '*' }], [[['e', 'e'], ['e']]], { maxLength: 1 });
    expect(C.arrows.length).toBe(2);
    expect(C.arrows[C.compose(C.arrow('e'), C.arrow('e'))]!.name).toBe('e');
    // without the relation the loop generates an infinite monoid
    expect(() => categoryFromGraph(['*'], [{ name: 'e', src: '*', tgt: '*' }], [], { maxLength: 2 })).toThrow(/not finite/);
  });

  it('finiteCategory checks identities and the ends of composites', () => {
    expect(() =>
      finiteCategory(
        ['a'],
        [
          { name: 'id', dom: 0, cod: 0 },
          { name: 'u', dom: 0, cod: 0 },
        ],
        [0],
        () => 1,
      ),
    ).toThrow(/identity law fails at id/);
    expect(() =>
      finiteCategory(
        ['a', 'b'],
        [
          { name: 'id_a', dom: 0, cod: 0 },
          { name: 'id_b', dom: 1, cod: 1 },
          { name: 'f', dom: 0, cod: 1 },
        ],
        [0, 1],
        (g, f) => (g === 1 && f === 2 ? 0 : g === 1 ? f : g),
      ),
    ).toThrow(/composite id_b∘f must be an arrow a → b/);
  });

  it('opposite reverses arrows and composition', () => {
    const C = parsePoset('0<1<2');
    const Op = C.opposite();
    const f = C.arrow('0≤1');
    const g = C.arrow('1≤2');
    expect(Op.arrows[f]!.dom).toBe(1);
    expect(Op.compose(f, g)).toBe(C.compose(g, f));
    checkCategory(Op);
  });
});
