import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/index.js';
import { diagramOf, stringDiagram } from '../../src/draw/index.js';
import { cli } from '../cli/helpers.js';

/** Recurrent layers drawn as their algebra's diagram (the cell and its state loop), or unrolled on request. */
describe('pictures of recurrent layers', () => {
  it('a scan is its cell with the state wire looping back from s₀ = 0, in a frame naming the algebra', () => {
    const f = parseSpec('embedding(60,16) >> lstm(16,32) >> dense(32,60)');
    const svg = stringDiagram(f);
    expect(svg).toContain('lstm(16,32): the algebra (s₀ = 0, lstm_cell(16,32)) — every output');
    expect(svg).toContain('state [64], s₀ = 0');
    expect(svg).toContain('weight_ih_l0 [128,16]');
    const d = diagramOf(f);
    expect(d.nodes.map((n) => n.label)).toEqual(['embedding(60,16)', 'lstm_cell(16,32)', 'dense(32,60)']);
    for (const n of d.nodes) expect(n.x + n.w).toBeLessThanOrEqual(d.width);
  });

  it('a fold outputs its state; bidirectional stacks both directions', () => {
    expect(stringDiagram(parseSpec('fold(mgu_cell(10,3))'))).toContain('— the final state');
    const bi = diagramOf(parseSpec('bidirectional(gru(4,5))'));
    expect(bi.nodes.map((n) => n.label)).toEqual(['gru_cell(4,5) →', 'gru_cell(4,5)′ ← (reversed in time)']);
  });

  it('--unroll T draws T copies of the cell reading one θ, braided along the state wire', async () => {
    const d = diagramOf(parseSpec('lstm(2,3)'), { unroll: 4 });
    expect(d.nodes.filter((n) => n.label === 'lstm_cell(2,3)')).toHaveLength(4);
    expect(d.nodes.filter((n) => n.label === 'swap(6,3)')).toHaveLength(4);
    expect(d.wires.filter((w) => w.param).map((w) => w.label)).toEqual(['θ [84]', 'θ [84]', 'θ [84]', 'θ [84]']);
    const r = await cli('draw', '--model', 'lstm(2,3)', '--unroll', '13');
    expect(r.code).toBe(2);
    expect(r.err.trim()).toMatch(/--unroll draws at most 12 steps, got 13/);
  });
});
