import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

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
