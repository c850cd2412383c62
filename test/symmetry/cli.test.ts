import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

describe('paralens derive --decompose / --symmetry', () => {
  it("--group 'SO(3)' --decompose 'T(2)' prints 0 ⊕ 1 ⊕ 2; --json gives one object with the decomposition in e3nn's notation", async () => {
    const t = await cli('derive', '--group', 'SO(3)', '--decompose', 'T(2)');
    expect(t.code).toBe(0);
    expect(t.out).toContain('T(2) under SO(3): 0 ⊕ 1 ⊕ 2');
    const j = JSON.parse((await cli('derive', '--group', 'SO(3)', '--decompose', 'T(2)', '--json')).out);
    expect(j).toMatchObject({ group: 'SO(3)', rep: 'T(2)', decomposition: '1x0+1x1+1x2', dim: 9, symmetry: null });
    const o = JSON.parse((await cli('derive', '--group', 'O(3)', '--decompose', 'T(2)', '--json')).out);
    expect(o.decomposition).toBe('1x0e+1x1e+1x2e');
    expect(o.irreps[1]).toEqual({ mul: 1, l: 1, parity: 'e', dim: 3 });
    const t3 = await cli('derive', '--group', 'SO(3)', '--decompose', 'T(3)');
    expect(t3.out).toContain('0 ⊕ 3·1 ⊕ 2·2 ⊕ 3');
  });
  it("--symmetry restricts T(k): 'ijkl=jikl=klij' is 21-dimensional, 'ij=-ji' is 1x1e; huge multiplicities stay exact", async () => {
    const e = JSON.parse((await cli('derive', '--group', 'O(3)', '--decompose', 'T(4)', '--symmetry', 'ijkl=jikl=klij', '--json')).out);
    expect([e.dim, e.decomposition, e.symmetry]).toEqual([21, '2x0e+2x2e+1x4e', 'ijkl=jikl=klij']);
    const a = JSON.parse((await cli('derive', '--group', 'O(3)', '--symmetry', 'ij=-ji', '--json')).out);
    expect([a.dim, a.decomposition, a.rep]).toEqual([3, '1x1e', 'T(2)']);
    const big = JSON.parse((await cli('derive', '--group', 'SO(3)', '--decompose', 'T(40)', '--json')).out);
    expect(big.dim).toBe((3n ** 40n).toString());
  });
  it('bad input exits 2 with one line naming what was wrong', async () => {
    const g = await cli('derive', '--group', 'S(3)', '--decompose', 'V');
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/known for SO\(2\), SO\(3\) and O\(3\); got S\(3\)/);
    const k = await cli('derive', '--group', 'SO(3)', '--decompose', 'T(3)', '--symmetry', 'ij=ji');
    expect(k.code).toBe(2);
    expect(k.err).toMatch(/restricts T\(2\)/);
    const f = await cli('derive', '--group', 'SO(3)', '--symmetry', 'ij=jk');
    expect(f.code).toBe(2);
    const both = await cli('derive', '--group', 'SO(3)', '--decompose', 'V', '--in', 'V');
    expect(both.code).toBe(2);
  });
});

describe('paralens derive', () => {
  it('--json prints exactly one object with the documented fields', async () => {
    const r = await cli('derive', '--group', 'S(4)', '--in', 'V', '--out', 'V', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ group: 'S(4)', in: 'V', out: 'V', dim: 2 });
    expect(j.equivariance_error).toBeLessThan(1e-12);
    expect(typeof j.seconds).toBe('number');
    expect(j.basis).toBeUndefined();
  });
  it('--basis includes the basis matrices', async () => {
    const r = await cli('derive', '--group', 'SO(3)', '--in', 'T(2)', '--out', 'V', '--json', '--basis');
    const j = JSON.parse(r.out);
    expect(j.dim).toBe(1);
    expect(j.basis[0].length).toBe(3);
    expect(j.basis[0][0].length).toBe(9);
    expect(Math.abs(j.basis[0][0][5])).toBeCloseTo(1 / Math.sqrt(6), 12); // ε_{0,1,2}
    expect(j.element_errors.length).toBe(1);
    expect(j.element_errors[0]).toBeLessThan(1e-12);
  });
  it('prints a readable summary with the blocks', async () => {
    const r = await cli('derive', '--group', 'Trans(4)', '--in', 'V', '--out', 'V');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/dimension\s+4/);
    expect(r.out).toMatch(/orbits/);
    expect(r.out).toMatch(/basis element 1/);
  });
  it('bad input exits 2 naming what is known or expected', async () => {
    const g = await cli('derive', '--group', 'SU(3)', '--in', 'V', '--out', 'V');
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/known group/);
    expect(g.err.trim().split('\n').length).toBe(1);
    const r = await cli('derive', '--group', 'S(3)', '--in', 'V+', '--out', 'V', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error.code).toBe('E_EXPR');
    const m = await cli('derive', '--group', 'S(3)', '--in', 'V');
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/--out is required/);
    const perm = await cli('derive', '--group', 'Perm((1,0),(0,2,1))', '--in', 'V', '--out', 'V');
    expect(perm.code).toBe(2);
    expect(perm.err).toMatch(/not a permutation of 0…1/);
    const big = await cli('derive', '--group', 'S(40)', '--in', 'T(3)', '--out', 'T(3)', '--max-memory', '64');
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/needs about .* GiB/);
  });
});

describe('paralens equivariant train', () => {
  it('--json reports held-out MSE and equivariance error for both models', async () => {
    const r = await cli('equivariant', 'train', '--task', 'inertia', '--sizes', '40', '--steps', '60', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.rows.map((x: { model: string }) => x.model)).toEqual(['emlp', 'mlp']);
    const [e, m] = j.rows;
    expect(e.equivariance_error).toBeLessThan(1e-5);
    expect(m.equivariance_error).toBeGreaterThan(1e-2);
    expect(e.test_mse).toBeGreaterThan(0);
  });
  it('--task o5: the O(5)-invariant regression, invariant model vs MLP', async () => {
    const r = await cli('equivariant', 'train', '--task', 'o5', '--sizes', '30', '--steps', '40', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ task: 'o5', group: 'O(5)', in: '2V', out: 'T(0)' });
    expect(j.rows[0].equivariance_error).toBeLessThan(1e-4);
    expect(j.rows[1].equivariance_error).toBeGreaterThan(1e-2);
  });
  it('bad flags exit 2', async () => {
    expect((await cli('equivariant', 'train', '--task', 'foo')).code).toBe(2);
    expect((await cli('equivariant', 'train', '--sizes', '10,x')).code).toBe(2);
    expect((await cli('equivariant', 'fly')).code).toBe(2);
  });
});
