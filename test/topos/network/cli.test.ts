import { describe, expect, it } from 'vitest';
import { section } from '../../../src/cli/tour/topos-network.js';
import { cli, quietIO } from '../../cli/helpers.js';

describe('paralens topos', () => {
  it('site --edges: objects, fork, sieves, global truth values, C_X (text and --json)', async () => {
    const t = await cli('topos', 'site', '--edges', 'x1>h, x2>h, h>y');
    expect(t.code).toBe(0);
    expect(t.out).toContain('at h: tines x1→A★(h), x2→A★(h); tang A★(h)→A(h); handle h→A(h)');
    expect(t.out).toContain('global truth values  16 in PSh(C), 13 in Sh(C,J) ≃ PSh(C_X)');
    const j = await cli('topos', 'site', '--edges', 'x1>h, x2>h, h>y', '--json');
    const r = JSON.parse(j.out);
    expect(r.objects).toEqual(['x1', 'h', 'x2', 'y', 'A★(h)', 'A(h)']);
    expect(r.sievesPerObject['A★(h)']).toBe(5);
    expect(r.sievesPerObject['A(h)']).toBe(16);
    expect(r.sievesPerObjectCX['A(h)']).toBe(13);
    expect(r.objectsCX).toEqual(['x1', 'h', 'x2', 'y', 'A(h)']);
    expect(r.sheafGlobalTruthValues).toBe(13);
    expect(r.coveringSieves['A★(h)']).toEqual(['{x1→A★(h), x2→A★(h)}']);
    expect(r.minimal).toEqual(['x1', 'x2', 'y']);
    expect(r.maximal).toEqual(['A(h)']);
    expect(r.thin).toBe(true);
  });

  it('site --model: a chain, and a residual block that is not thin', async () => {
    const r = JSON.parse((await cli('topos', 'site', '--model', 'dense(2,4) >> sigmoid >> dense(4,1)', '--json')).out);
    expect(r.objects).toEqual(['x', '1:dense(2,4)', '2:sigmoid', '3:dense(4,1)']);
    expect(r.globalTruthValues).toBe(5); // down-sets of a 4-chain
    const s = JSON.parse((await cli('topos', 'site', '--model', 'dense(2,4) >> residual(dense(4,4) >> relu) >> dense(4,1)', '--json')).out);
    expect(s.thin).toBe(false);
    expect(s.forks[0].vertex).toBe('5:add');
  });

  it('omega --poset: sieves per object and global truth values; the V poset is not Boolean', async () => {
    const r = JSON.parse((await cli('topos', 'omega', '--poset', 'a<b, a<c', '--json')).out);
    expect(r.sieves).toEqual({ a: ['∅', '{id_a}'], b: ['∅', '{a≤b}', '{a≤b, id_b}'], c: ['∅', '{a≤c}', '{a≤c, id_c}'] });
    expect(r.globalTruthValues).toBe(5);
    expect(r.boolean).toBe(false);
    const t = await cli('topos', 'omega', '--poset', '0<1');
    expect(t.out).toContain('global truth values  3');
    expect(t.out).toContain('S = {0≤1} has ¬S = ∅ and ¬¬S = {0≤1, id_1}');
    // a discrete poset (single elements) is Boolean
    expect(JSON.parse((await cli('topos', 'omega', '--poset', 'a, b', '--json')).out).boolean).toBe(true);
  });

  it('info --model --data: entropies and I_k per layer', async () => {
    const r = JSON.parse(
      (await cli('topos', 'info', '--model', 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid', '--data', 'xor', '--json')).out,
    );
    expect(r.accuracy).toBe(1);
    expect(r.layers.map((l: { vertex: string }) => l.vertex)).toEqual(['2:sigmoid', '4:sigmoid', '6:sigmoid']);
    expect(r.layers[2].unit_entropies[0]).toBeCloseTo(1, 12);
    for (const l of r.layers) expect(l.max_cocycle_defect).toBeLessThan(1e-12);
    const t = await cli('topos', 'info', '--model', 'dense(2,3) >> tanh >> dense(3,1)', '--data', 'xor', '--epochs', '0', '--bins', '3');
    expect(t.code).toBe(0);
    expect(t.out).toContain('2:tanh');
  });

  it('bad input exits 2 with one line naming the problem', async () => {
    const cyc = await cli('topos', 'site', '--edges', 'a>b, b>a');
    expect(cyc.code).toBe(2);
    expect(cyc.err).toBe('paralens: the network graph has a cycle a > b > a; a feed-forward network must be acyclic\n');
    const anti = await cli('topos', 'omega', '--poset', 'a<b, b<a', '--json');
    expect(anti.code).toBe(2);
    expect(JSON.parse(anti.out).error.message).toMatch(/not antisymmetric/);
    expect((await cli('topos', 'site')).code).toBe(2);
    expect((await cli('topos', 'site', '--model', 'dense(2,2)', '--edges', 'a>b')).code).toBe(2);
    expect((await cli('topos', 'omega')).code).toBe(2);
    expect((await cli('topos', 'info', '--model', 'dense(2,1)')).code).toBe(2);
    expect((await cli('topos', 'info', '--model', 'dense(2,1)', '--data', 'xor', '--bins', '1')).code).toBe(2);
    expect((await cli('topos', 'nope')).code).toBe(2);
    expect((await cli('topos')).code).toBe(2);
  });

  it('--help for each subcommand', async () => {
    for (const sub of ['site', 'omega', 'info']) {
      const h = await cli('topos', sub, '--help');
      expect(h.code).toBe(0);
      expect(h.out).toContain(`paralens topos ${sub}`);
    }
  });
});

describe('tour section topos-network', () => {
  it('prints its findings: exact naturality, zero conv defect, non-Boolean Sierpiński', async () => {
    const r = await section.run({ seed: 0, io: quietIO });
    expect(r.lines.length).toBeGreaterThan(5);
    expect(r.data.backpropNaturalityDefect).toBe(0);
    expect(r.data.backpropVsSgd).toBe(0);
    expect(r.data.residualThin).toBe(false);
    expect((r.data.defects as { circularConv: number }).circularConv).toBeLessThan(1e-12);
    expect(r.data.activitySections).toBe(4);
  });
});
