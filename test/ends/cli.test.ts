import { describe, expect, it } from 'vitest';
import { section } from '../../src/cli/tour/ends.js';
import { cli, quietIO } from '../cli/helpers.js';

describe('paralens end', () => {
  it('--json: the end over BG agrees with the equivariance solver', async () => {
    const r = await cli('end', '--group', 'S(4)', '--in', 'T(2)', '--out', 'V', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      group: 'S(4)',
      order: 24,
      in: 'T(2)',
      out: 'V',
      in_size: 16,
      out_size: 4,
      unknowns: 64,
      dim: 5,
      solver_dim: 5,
      agree: true,
      centre: ['e'],
    });
    // an equaliser needs only the generating arrows: S(4)'s two generators, not its 23 non-identity elements
    expect(j.generators).toBe(2);
    expect(j.equations).toBe(2 * 64);
    expect(j.residual_over).toBe('elements');
    expect(j.max_residual).toBeLessThan(1e-12);
  });

  it('prints sizes, dimensions and the centre', async () => {
    const r = await cli('end', '--group', 'D(4)', '--in', 'V', '--out', 'V');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/end dimension\s+3/);
    expect(r.out).toMatch(/equivariance solver\s+3 \(agrees\)/);
    expect(r.out).toMatch(/centre Z\(D\(4\)\)\): 2 elements: e, \(0 2\)\(1 3\)/);
  });

  it('bad input exits 2 with one line: unknown group, Lie group, missing flag, bad representation', async () => {
    for (const args of [
      ['end', '--group', 'Foo(3)', '--in', 'V', '--out', 'V'],
      ['end', '--group', 'SO(3)', '--in', 'V', '--out', 'V'],
      ['end', '--group', 'S(3)', '--in', 'V'],
      ['end', '--group', 'S(3)', '--in', 'W', '--out', 'V'],
      ['end', '--group', 'S(6)', '--in', 'V', '--out', 'V', '--max-order', '100'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.out).toBe('');
      expect(r.err.trim().split('\n').length).toBe(1);
    }
    expect((await cli('end', '--group', 'SO(3)', '--in', 'V', '--out', 'V')).err).toMatch(/SO\(3\) is a Lie group/);
    expect(JSON.parse((await cli('end', '--group', 'Foo', '--in', 'V', '--out', 'V', '--json')).out).error.message).toMatch(/group 'Foo'/);
  });
});

describe('paralens coend', () => {
  it('--hom --group: the conjugacy classes', async () => {
    const j = JSON.parse((await cli('coend', '--hom', '--group', 'S(3)', '--json')).out);
    expect(j).toMatchObject({ functor: 'Hom', over: 'S(3)', endomorphisms: 6, count: 3 });
    expect(j.classes).toEqual([['e'], ['(0 1)', '(0 2)', '(1 2)'], ['(0 1 2)', '(0 2 1)']]);
    expect(JSON.parse((await cli('coend', '--hom', '--group', 'Z(8)', '--json')).out).count).toBe(8);
    const t = await cli('coend', '--hom', '--group', 'S(4)');
    expect(t.out).toMatch(/24 endomorphisms → 5 classes/);
    expect(t.out).toMatch(/\[4\] size 8:/);
  });

  it('--hom --poset: one class per element', async () => {
    const j = JSON.parse((await cli('coend', '--hom', '--poset', 'a<b, a<c', '--json')).out);
    expect(j.count).toBe(3);
    expect(j.classes).toEqual([['id_a'], ['id_b'], ['id_c']]);
  });

  it('--group --in --out: coinvariants against characters', async () => {
    const j = JSON.parse((await cli('coend', '--group', 'S(4)', '--in', 'T(2)', '--out', 'V', '--json')).out);
    expect(j).toMatchObject({ group: 'S(4)', order: 24, size: 64, dim: 5, agree: true });
    expect(j.character_inner_product).toBeCloseTo(5, 12);
  });

  it('bad input exits 2: no mode, both --group and --poset, a cyclic poset, --hom with --in', async () => {
    for (const args of [
      ['coend'],
      ['coend', '--hom', '--group', 'S(3)', '--poset', 'a<b'],
      ['coend', '--hom', '--poset', 'a<b, b<a'],
      ['coend', '--hom', '--group', 'S(3)', '--in', 'V'],
      ['coend', '--hom', '--group', 'Q(8)'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n').length).toBe(1);
    }
    expect((await cli('coend', '--hom', '--poset', 'a<b, b<a')).err).toMatch(/not antisymmetric/);
  });
});

describe('tour section: ends and coends', () => {
  it('reports the worked checks and summary rows', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    const d = out.data as {
      ends: { dim: number; solver_dim: number }[];
      coends: { classes: number }[];
      coinvariants: { dim: number; characters: number }[];
      gluing: { max_error: number; classes: number; points: number }[];
      sheaf: { one_per_point: boolean; glued: boolean }[];
    };
    d.ends.forEach((e) => expect(e.dim).toBe(e.solver_dim));
    expect(d.coends.map((c) => c.classes)).toEqual([3, 5, 4, 6, 3]);
    d.coinvariants.forEach((c) => expect(c.dim).toBeCloseTo(c.characters, 9));
    d.gluing.forEach((g) => {
      expect(g.max_error).toBeLessThan(1e-12);
      expect(g.classes).toBe(g.points);
    });
    expect(d.sheaf.map((s) => [s.one_per_point, s.glued])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(out.summary!.length).toBeGreaterThanOrEqual(4);
    expect(out.figures!.length).toBe(1);
    expect(out.lines.join('\n')).toMatch(/Gluing as a coend/);
  });
});
