import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

/** `paralens derive --attention GEOMETRY`: the derived kernel space of every declared geometry, and its refusals (exit 2, one line). */
describe('derive --attention', () => {
  it('seq(8) has 15 basis elements, one per offset k − q; --basis gives the matrices', async () => {
    const r = await cli('derive', '--attention', 'seq(8)', '--json', '--basis');
    expect(r.code, r.err).toBe(0);
    const j = r.json();
    expect(j.dimension).toBe(15);
    expect(j.elements).toHaveLength(15);
    expect(j.elements[1].description).toBe('k − q = 1: 7 pairs');
    expect(j.basis).toHaveLength(15);
    expect(j.basis[0]).toHaveLength(8);
    // element 1 is the normalised indicator of the pairs with k − q = 1
    expect(j.basis[1][2][3]).toBeCloseTo(1 / Math.sqrt(7), 12);
    expect(j.basis[1][3][2]).toBe(0);
  });

  it('answers for every geometry', async () => {
    const want: Record<string, number> = {
      'seq(8)': 15,
      'seq(8,causal)': 8,
      'seq(8,rotary)': 15,
      'cyclic(8)': 8,
      'grid(3,4)': 35,
      'grid(4,4,D4)': 10,
      'set(5)': 2,
      'points(5)': 16,
      'points(5,2)': 16,
    };
    for (const [g, dim] of Object.entries(want)) {
      const r = await cli('derive', '--attention', g, '--json');
      expect(r.code, `${g}: ${r.err}`).toBe(0);
      expect(r.json().dimension, g).toBe(dim);
      expect(r.json().elements, g).toHaveLength(dim);
    }
    const rot = (await cli('derive', '--attention', 'seq(8,rotary)', '--head-width', '6', '--json')).json();
    expect(rot.rotary).toMatchObject({ head_width: 6, dimension: 6 });
    const pts = (await cli('derive', '--attention', 'points(5,2)', '--json', '--basis')).json();
    expect(pts.value_maps.map((v: { in: string; edge: string; out: string }) => `${v.in}⊗${v.edge}→${v.out}`)).toContain('1o⊗Y_1→2e');
    expect(pts.clebsch_gordan).toHaveLength(pts.value_maps.length);
    const text = await cli('derive', '--attention', 'set(4)');
    expect(text.out).toMatch(/dimension {4}2/);
    expect(text.out).toMatch(/q = k \(I\): 4 pairs/);
  });

  it('refuses what it cannot handle: exit 2, one line naming the value and the limit', async () => {
    for (const [g, msg] of [
      ['seq(5000)', /T = 5000 positions; at most 4096/],
      ['points(5,7)', /lmax = 7; at most 4/],
      ['grid(3,5,D4)', /needs a square grid/],
      ['helix(4)', /unknown geometry 'helix'/],
    ] as const) {
      const r = await cli('derive', '--attention', g);
      expect(r.code, g).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(msg);
    }
    expect((await cli('derive', '--attention', 'seq(5000)', '--json')).json().error.code).toBe('E_TOO_LARGE');
    const big = await cli('derive', '--attention', 'seq(4096)', '--max-memory', '16');
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/need about 256 MiB; the limit is 16 MiB/);
    const basis = await cli('derive', '--attention', 'seq(1000)', '--basis');
    expect(basis.code).toBe(2);
    expect(basis.err).toMatch(/more than 4194304 numbers; drop --basis/);
    const mixed = await cli('derive', '--attention', 'seq(4)', '--group', 'S(3)');
    expect(mixed.code).toBe(2);
  });
});
