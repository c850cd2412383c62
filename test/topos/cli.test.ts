import { describe, expect, it } from 'vitest';
import { section } from '../../src/cli/tour/topos.js';
import { cli, quietIO } from '../cli/helpers.js';

describe('paralens logic', () => {
  it('laws --json lists each law with pass/fail and a counterexample', async () => {
    const r = await cli('logic', 'laws', '--algebra', 'kleene-dienes', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.heyting).toBe(false);
    const adj = j.results.find((x: { name: string }) => x.name === 'adjunction');
    expect(adj.holds).toBe(false);
    expect(Object.keys(adj.counterexample.values)).toEqual(['a', 'b', 'x']);
    const g = JSON.parse((await cli('logic', 'laws', '--algebra', 'godel', '--json')).out);
    expect(g.heyting).toBe(true);
    expect(g.results.filter((x: { holds: boolean }) => !x.holds).map((x: { name: string }) => x.name)).toEqual(['excluded-middle', 'double-negation']);
  });

  it('laws as text and for all logics; eval of the operators', async () => {
    const r = await cli('logic', 'laws', '--algebra', 'boolean');
    expect(r.out).toMatch(/Heyting algebra: yes, residuated: yes, Boolean: yes/);
    const all = JSON.parse((await cli('logic', 'laws', '--algebra', 'all', '--json')).out);
    expect(all.algebras.map((a: { algebra: string }) => a.algebra)).toEqual(['godel', 'boolean', 'lukasiewicz', 'product', 'kleene-dienes']);
    const e = JSON.parse((await cli('logic', 'eval', '--a', '0.8', '--b', '0.3', '--json')).out);
    const godel = e.operators.find((o: { algebra: string }) => o.algebra === 'godel');
    expect(godel.implies).toBe(0.3);
    expect(e.operators.find((o: { algebra: string }) => o.algebra === 'lukasiewicz').implies).toBeCloseTo(0.5, 12);
  });

  it('bad input exits 2 naming the value', async () => {
    const r = await cli('logic', 'eval', '--algebra', 'godel', '--a', '1.3');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/1\.3 is outside \[0, 1\]/);
    expect((await cli('logic', 'laws', '--algebra', 'intuitionist')).code).toBe(2);
    expect((await cli('logic', 'nope')).code).toBe(2);
    const j = await cli('logic', 'eval', '--algebra', 'boolean', '--a', '0.5', '--json');
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out).error.message).toMatch(/0\.5 is not 0 or 1/);
  });

  it('--help', async () => {
    const r = await cli('logic', 'laws', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--algebra/);
  });
});

describe('paralens sheaf', () => {
  it('--exercise --json: which subsets glue at 0.05, 0.15, 0.5', async () => {
    const r = await cli('sheaf', '--exercise', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.tolerances.map((t: { tolerance: number }) => t.tolerance)).toEqual([0.05, 0.15, 0.5]);
    expect(j.tolerances[1].maximum.names).toEqual(['A', 'B', 'D']);
  });

  it('--predictions glues or names the conflict; maximum consistent subset', async () => {
    const r = await cli('sheaf', '--predictions', '0.7,0.3 | 0.72,0.28 | 0.3,0.7', '--tol', '0.1', '--json');
    const j = JSON.parse(r.out);
    expect(j.glued).toBe(false);
    expect(j.maximum.names).toEqual(['A', 'B']);
    const t = await cli('sheaf', '--predictions', '0.7 | 0.72', '--tol', '0.1');
    expect(t.out).toMatch(/glued at ε = 0.1: 0.71/);
  });

  it('the ensemble study on iris as one JSON object', async () => {
    const r = await cli('sheaf', '--data', 'iris', '--experts', '3', '--tol', '0.2', '--splits', '1', '--epochs', '30', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.experts).toBe(3);
    expect(j.heldOut).toBe(30);
    expect(j.atTolerance.glued + j.atTolerance.notGlued).toBe(30);
  });

  it('bad input exits 2 with one line naming the value', async () => {
    const neg = await cli('sheaf', '--tol', '-1');
    expect(neg.code).toBe(2);
    expect(neg.err).toMatch(/--tol must be ≥ 0, got -1/);
    const len = await cli('sheaf', '--predictions', '0.7,0.3 | 0.72', '--tol', '0.1');
    expect(len.code).toBe(2);
    expect(len.err).toMatch(/section B has a prediction of length 1 but section A has length 2/);
    expect((await cli('sheaf', '--predictions', '0.7,abc', '--tol', '0.1')).err).toMatch(/'abc', not a number/);
    expect((await cli('sheaf', '--experts', '1', '--splits', '1')).code).toBe(2);
    expect((await cli('sheaf', '--data', 'nope')).code).toBe(2);
  });
});

describe('tour section', () => {
  it('prints the subobject classifier, the logics, exercise 3 and the ensemble, with summary rows', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    const text = out.lines.join('\n');
    expect(text).toMatch(/decision boundary χ⁻¹\(0\.5\)/);
    expect(text).toMatch(/kleene-dienes .* adjunction/);
    expect(text).toMatch(/ε = 0\.15: 6 of 26 subsets/);
    expect(text).toMatch(/AUROC of disagreement/);
    expect(out.summary!.length).toBeGreaterThanOrEqual(4);
    expect(out.figures![0]!.svg).toMatch(/^<svg/);
    const xorData = out.data.xor as { subobject: number[]; boundary: { polylines: unknown[] } };
    expect(xorData.subobject).toEqual([1, 2]);
    expect(xorData.boundary.polylines.length).toBe(2);
  });
});
