import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { equivariantBasis, basisMatrix, estimateBasisBytes } from '../../src/symmetry/solve/solver.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { SolveTooLargeError } from '../../src/symmetry/group/errors.js';
import { identificationNullspace, nullspace, nullspaceOfGram } from '../../src/linalg/nullspace.js';
import { csrFromUniqueTriples, fromTriples, sparseToDense } from '../../src/linalg/sparse.js';
import { fromRows } from '../../src/linalg/matrix.js';
import { iterativeNullspace } from '../../src/linalg/iterative.js';
import { RangeArgError, TooLargeError } from '../../src/errors.js';

const derive = (g: string, i: string, o: string, opts = {}) => equivariantBasis(parseGroup(g), parseRep(i), parseRep(o), opts);

/** Principal angles: the two row spaces agree iff projecting each basis onto the other keeps its norm. */
function sameSpan(a: ReturnType<typeof derive>, b: ReturnType<typeof derive>): number {
  let worst = 0;
  for (let i = 0; i < a.dim; i++) {
    const x = basisMatrix(a, i).data;
    let kept = 0;
    for (let j = 0; j < b.dim; j++) {
      const y = basisMatrix(b, j).data;
      const d = x.reduce((s, v, t) => s + v * y[t]!, 0);
      kept += d * d;
    }
    worst = Math.max(worst, Math.abs(1 - kept));
  }
  return worst;
}

describe('solver methods agree', () => {
  it('the matrix-free iterative solver finds the same space as the dense one (SO(3), T(2) → T(2))', () => {
    const dense = derive('SO(3)', 'T(2)', 'T(2)');
    const iter = derive('SO(3)', 'T(2)', 'T(2)', { denseLimit: 10 });
    expect(iter.blocks[0]!.method).toBe('iterative');
    expect(iter.dim).toBe(dense.dim);
    expect(sameSpan(iter, dense)).toBeLessThan(1e-8);
    expect(iter.generatorResidual).toBeLessThan(1e-8);
  });
  it('iterative solver beyond the dense limit: SO(3) T(3) → T(3) (729 unknowns) has dimension 15', () => {
    const b = derive('SO(3)', 'T(3)', 'T(3)', { denseLimit: 100 });
    expect(b.blocks[0]!.method).toBe('iterative');
    expect(b.dim).toBe(15);
    expect(b.generatorResidual).toBeLessThan(1e-8);
  });
  it('the orbit solver agrees with the dense solver on a permutation group', () => {
    const G = parseGroup('D(5)');
    const orbit = equivariantBasis(G, parseRep('T(2)'), parseRep('V'));
    const asMatrixGroup = { ...G, perms: undefined, samplePerm: undefined };
    const dense = equivariantBasis(asMatrixGroup, parseRep('T(2)'), parseRep('V'));
    expect(orbit.blocks[0]!.method).toBe('orbits');
    expect(dense.blocks[0]!.method).toBe('dense');
    expect(orbit.dim).toBe(dense.dim);
    expect(sameSpan(orbit, dense)).toBeLessThan(1e-9);
  });
});

describe('block splitting', () => {
  it('multiplicities cost nothing: 5V+3T(0) → 4V+2T(0) solves each distinct block pair once', () => {
    const b = derive('O(3)', '5V+3T(0)', '4V+2T(0)');
    expect(b.blocks.length).toBe(4); // V←V, V←T0, T0←V, T0←T0
    const vv = b.blocks.find((x) => x.out === 'V' && x.in === 'V')!;
    expect(vv.uses).toBe(20);
    expect(b.dim).toBe(20 + 6);
  });
  it('distributes ⊗ over ⊕ with the right coordinates: (V+T0)*(V+T0) → T(2) under O(3)', () => {
    const b = derive('O(3)', '(V+T(0))*(V+T(0))', 'T(2)');
    // V⊗V → T(2): 3 maps; T0⊗T0 → T(2): δ; V⊗T0, T0⊗V → T(2): none
    expect(b.dim).toBe(4);
    expect(b.randomElementError!).toBeLessThan(1e-12);
  });
});

describe('refusal', () => {
  it('refuses a solve that needs more memory than allowed, with the estimate, before starting', () => {
    expect(() => derive('S(30)', 'T(3)', 'T(3)', { maxBytes: 2 ** 20 })).toThrow(SolveTooLargeError);
    try {
      derive('SO(3)', 'T(4)', 'T(4)', { maxBytes: 2 ** 20 });
    } catch (e) {
      expect(e).toBeInstanceOf(SolveTooLargeError);
      expect((e as Error).message).toMatch(/needs about .* but the limit is 1\.0 MiB/);
      expect((e as SolveTooLargeError).bytes).toBeGreaterThan(2 ** 20);
    }
  });
});

describe('nullspace (dense)', () => {
  it('identification systems take the exact union-find path and agree with pivoted Cholesky', () => {
    const rng = new Rng(5);
    const n = 40,
      r: number[] = [],
      c: number[] = [],
      v: number[] = [];
    for (let k = 0; k < 25; k++) {
      const i = rng.int(n),
        j = rng.int(n);
      if (i === j) continue;
      r.push(k, k);
      c.push(i, j);
      v.push(2, -2);
    }
    r.push(25);
    c.push(3);
    v.push(1); // pin x₃ = 0
    const C = fromTriples(26, n, r, c, v);
    const fast = identificationNullspace([C], n)!;
    expect(fast).toBeDefined();
    const M = new Float64Array(n * n);
    for (let row = 0; row < C.rows; row++)
      for (let a = C.rowPtr[row]!; a < C.rowPtr[row + 1]!; a++)
        for (let b = C.rowPtr[row]!; b < C.rowPtr[row + 1]!; b++) M[C.colIdx[a]! * n + C.colIdx[b]!]! += C.vals[a]! * C.vals[b]!;
    const slow = nullspaceOfGram(M, n, 1e-9);
    expect(fast.rows).toBe(slow.rows);
    // same span: projecting each fast vector onto the slow basis keeps its unit norm
    for (let i = 0; i < fast.rows; i++) {
      let kept = 0;
      for (let j = 0; j < slow.rows; j++) {
        let d = 0;
        for (let t = 0; t < n; t++) d += fast.data[i * n + t]! * slow.data[j * n + t]!;
        kept += d * d;
      }
      expect(kept).toBeCloseTo(1, 10);
    }
    expect(identificationNullspace([fromTriples(1, 3, [0, 0, 0], [0, 1, 2], [1, 1, -2])], 3)).toBeUndefined();
  });

  it('finds an orthonormal basis of ker C for a random rank-deficient C', () => {
    const rng = new Rng(2);
    const n = 12,
      r = 7;
    const U = Array.from({ length: 20 }, () => Array.from({ length: r }, () => rng.normal()));
    const W = Array.from({ length: r }, () => Array.from({ length: n }, () => rng.normal()));
    const C = fromRows(U.map((u) => Array.from({ length: n }, (_, j) => u.reduce((s, v, k) => s + v * W[k]![j]!, 0))));
    const N = nullspace(C);
    expect(N.rows).toBe(n - r);
    for (let a = 0; a < N.rows; a++) {
      for (let i = 0; i < C.rows; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += C.data[i * n + j]! * N.data[a * n + j]!;
        expect(Math.abs(s)).toBeLessThan(1e-9);
      }
      for (let b = 0; b < N.rows; b++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += N.data[a * n + j]! * N.data[b * n + j]!;
        expect(s).toBeCloseTo(a === b ? 1 : 0, 12);
      }
    }
  });
});

describe('the iterative solve is bounded (found by the long fuzz run: S(64)xO(64) on V ran past 60 s)', () => {
  it('refuses a solve with more constraints than it may hold before building them, naming the counts', () => {
    // 128² unknowns under 2019 generators: 3.3e7 constraints
    expect(() => derive('S(64)xO(64)', 'V', 'V')).toThrow(/16384 unknowns under 2019 generators are 3\.31e\+7 constraints; at most 1\.60e\+7/);
  });

  it('refuses it in the plan, before the generator images of any block exist (4 s of them for dual(dual(V)) → V in the long fuzz run)', () => {
    // estimateBasisBytes builds no generator image: it is the plan alone, what a layer is costed with
    const G = parseGroup('S(64)xO(64)');
    expect(() => estimateBasisBytes(G, parseRep('dual(dual(V))'), parseRep('V'))).toThrow(/16384 unknowns under 2019 generators/);
    // a solve the plan lets through, on the same group: 128 unknowns of T(0) → V
    expect(estimateBasisBytes(G, parseRep('T(0)'), parseRep('V'))).toBeGreaterThan(0);
  });

  it('meters the iterations as they run: a work budget it cannot keep is a TooLargeError, the same solve within budget succeeds', () => {
    const op = (n: number) => ({
      n,
      m: n,
      cost: n,
      apply: (x: Float64Array, y: Float64Array) => y.set(x.map((v, i) => (i % 2 ? v : 0))),
      applyT: (y: Float64Array, x: Float64Array) => x.set(y.map((v, i) => (i % 2 ? v : 0))),
    });
    // the kernel of "keep the odd coordinates" is the even ones: n/2 dimensions
    expect(iterativeNullspace(op(64), { rng: new Rng(1) }).dim).toBe(32);
    expect(() => iterativeNullspace(op(64), { rng: new Rng(1), maxWork: 1000 })).toThrow(TooLargeError);
  });
});

describe('csrFromUniqueTriples', () => {
  it('counting-sorts triples into rows and refuses a row outside [0, rows) instead of corrupting the row pointers', () => {
    const r = Int32Array.from([1, 0, 1]),
      c = Int32Array.from([2, 1, 0]),
      v = Float64Array.from([3, 4, 5]);
    expect(Array.from(sparseToDense(csrFromUniqueTriples(2, 3, r, c, v)).data)).toEqual([0, 4, 0, 5, 0, 3]);
    expect(() => csrFromUniqueTriples(2, 3, Int32Array.from([0, 2]), Int32Array.from([0, 0]), Float64Array.from([1, 1]))).toThrow(RangeArgError);
    expect(() => csrFromUniqueTriples(2, 3, Int32Array.from([-1]), Int32Array.from([0]), Float64Array.from([1]))).toThrow(/row -1/);
  });
});
