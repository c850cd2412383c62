import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { section } from '../../../src/cli/tour/attention.js';
import { FORTUNES_DIR } from '../../../src/data/node-text.js';
import { layerDefects } from '../../../src/experiments/equivariant/attention-positions.js';
import { init } from '../../../src/tensor/init.js';
import { quietIO } from '../../cli/helpers.js';

// the study trains four small models: on the fast backend, as the tour runs it
await init({ threads: 1 });

describe('the position mechanisms and their symmetries', () => {
  it('layerDefects: rounding error exactly where a symmetry is claimed, order one where it is not', () => {
    for (const seed of [0, 1]) {
      for (const r of layerDefects(seed)) {
        const shiftClaimed = r.position !== 'absolute(32)';
        const permClaimed = r.position === 'none' && r.mask === 'none';
        expect(r.shift, `${r.position} ${r.mask} shift`).toSatisfy((v: number) => (shiftClaimed ? v < 1e-12 : v > 0.05));
        expect(r.permutation, `${r.position} ${r.mask} permutation`).toSatisfy((v: number) => (permClaimed ? v < 1e-12 : v > 0.05));
      }
    }
  });
});

describe('tour section: attention', () => {
  it('reports the defects, and on fortunes the study with absolute refusing 2T and a nonzero shift defect for it only', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    expect(out.lines.join('\n')).toMatch(/shift defect/);
    expect(out.summary!.length).toBe(3);
    const study = (
      out.data as { study: { rows?: { position: string; valBitsPerChar: Record<number, number | null>; shiftDefect: number }[]; skipped?: string } }
    ).study;
    if (!existsSync(FORTUNES_DIR)) {
      expect(study.skipped).toMatch(/fortunes/);
      return;
    }
    const rows = study.rows!;
    expect(rows.map((r) => r.position)).toEqual(['rope', 'relative', 'none', 'absolute(32)']);
    for (const r of rows) {
      expect(r.valBitsPerChar[32]!).toBeLessThan(4.5); // below the uniform log2(V) ≈ 6.8 bits after 300 steps
      if (r.position.startsWith('absolute')) {
        expect(r.valBitsPerChar[64]).toBeNull();
        expect(r.shiftDefect).toBeGreaterThan(1e-3);
      } else {
        expect(r.valBitsPerChar[64]).not.toBeNull();
        expect(r.shiftDefect).toBeLessThan(1e-4);
      }
    }
  }, 120_000);
});
