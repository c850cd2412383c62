import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/random/rng.js';
import { simulateCharged } from '../../../src/data/nbody-sim.js';
import {
  NBODY,
  formatOf,
  nbodyDataset,
  nbodyEquivarianceDefect,
  nbodySamples,
  nbodySpec,
  randomE3,
  transformSamples,
  nbodyRun,
} from '../../../src/experiments/equivariant/nbody.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { cli } from '../../cli/helpers.js';

/** Kinetic + Coulomb energy ½Σ|v|² + ½Σ_{i≠j} q_i q_j/|x_i − x_j| of one frame. */
function energy(x: Float64Array, v: Float64Array, q: Float64Array, n: number): number {
  let e = 0;
  for (let i = 0; i < n; i++) {
    e += 0.5 * (v[3 * i]! ** 2 + v[3 * i + 1]! ** 2 + v[3 * i + 2]! ** 2);
    for (let j = 0; j < n; j++)
      if (i !== j) e += (0.5 * q[i]! * q[j]!) / Math.hypot(x[3 * i]! - x[3 * j]!, x[3 * i + 1]! - x[3 * j + 1]!, x[3 * i + 2]! - x[3 * j + 2]!);
  }
  return e;
}

describe('the charged-particle simulator (NRI, 3-D as in EGNN)', () => {
  it('is deterministic by seed; charges ±1; velocities start at norm 0.5', () => {
    const a = simulateCharged(new Rng(3), 5),
      b = simulateCharged(new Rng(3), 5),
      c = simulateCharged(new Rng(4), 5);
    expect(Array.from(a.positions)).toEqual(Array.from(b.positions));
    expect(Array.from(a.positions)).not.toEqual(Array.from(c.positions));
    expect([...a.charges].every((q) => q === 1 || q === -1)).toBe(true);
    const first = simulateCharged(new Rng(3), 1, { sampleEvery: 1 });
    for (let i = 0; i < 5; i++) expect(Math.hypot(...first.velocities.subarray(3 * i, 3 * i + 3))).toBeCloseTo(0.5, 1);
  });

  it('leapfrog conserves energy (two like charges, no force clipped): the drift is small and halves with Δt', () => {
    // NRI saves x_t with v_{t−½} (the velocity half a step behind), so the energy read off a frame is off by O(Δt)
    const seed = [0, 1, 2, 3, 4, 5, 6, 7].find((k) => {
      const q = simulateCharged(new Rng(k), 1, { particles: 2 }).charges;
      return q[0] === q[1];
    })!;
    const drift = (dt: number): number => {
      const t = simulateCharged(new Rng(seed), 40, { particles: 2, dt, sampleEvery: Math.round(0.1 / dt) });
      const P = 6,
        e = (k: number): number => energy(t.positions.subarray(k * P, (k + 1) * P), t.velocities.subarray(k * P, (k + 1) * P), t.charges, 2);
      let worst = 0;
      for (let k = 1; k < t.frames; k++) worst = Math.max(worst, Math.abs(e(k) - e(0)));
      return worst;
    };
    const d1 = drift(0.002),
      d2 = drift(0.001);
    expect(d1).toBeLessThan(1e-2);
    expect(d1 / d2).toBeGreaterThan(1.6);
    expect(d1 / d2).toBeLessThan(2.5);
  });

  it('like charges repel and opposite charges attract', () => {
    // two particles, started at rest: their distance grows for like charges, shrinks for opposite ones
    for (let seed = 0; seed < 6; seed++) {
      const t = simulateCharged(new Rng(seed), 2, { particles: 2, velocityNorm: 1e-12 });
      const d = (k: number): number => Math.hypot(...[0, 1, 2].map((c) => t.positions[k * 6 + c]! - t.positions[k * 6 + 3 + c]!));
      if (t.charges[0]! === t.charges[1]!) expect(d(1)).toBeGreaterThan(d(0));
      else if (d(0) > 0.5) expect(d(1)).toBeLessThan(d(0));
    }
  });
});

describe('the N-body task', () => {
  const s = nbodySamples(12, 43);
  it('frame 30 in, frame 40 out; the three input formats', () => {
    const cloud = nbodyDataset(s, 'cloud'),
      nodes = nbodyDataset(s, 'nodes'),
      flat = nbodyDataset(s, 'flat');
    expect(cloud.x.shape).toEqual([12, 5, 11]);
    expect(nodes.x.shape).toEqual([12, 5, 7]);
    expect(flat.x.shape).toEqual([12, 35]);
    expect(cloud.y.shape).toEqual([12, 5, 3]);
    // the cloud's x − x̄ features sum to zero per sample; q is ±1; |v| is the norm of v
    let sum = 0;
    for (let i = 0; i < 5; i++) sum += cloud.x.data[i * 11 + 8]!;
    expect(Math.abs(sum)).toBeLessThan(1e-5);
    expect(Math.abs(cloud.x.data[3]!)).toBe(1);
    expect(cloud.x.data[4]).toBeCloseTo(Math.hypot(cloud.x.data[5]!, cloud.x.data[6]!, cloud.x.data[7]!), 5);
    // the target is 1000 steps later: the positions moved
    expect(Math.abs(cloud.y.data[0]! - cloud.x.data[0]!)).toBeGreaterThan(1e-3);
    expect(NBODY.targetFrame - NBODY.inputFrame).toBe(10);
  });

  it('the task is E(3) × S(5)-equivariant itself: simulating the transformed initial state gives the transformed target', () => {
    // the simulator commutes with E(3): rotate/translate/reflect the initial frame and run on
    const g = randomE3(new Rng(5));
    const moved = transformSamples(s, g);
    expect(moved.count).toBe(12);
    // distances between particles are preserved
    const dist = (x: Float64Array, b: number, i: number, j: number): number =>
      Math.hypot(...[0, 1, 2].map((c) => x[(b * 5 + i) * 3 + c]! - x[(b * 5 + j) * 3 + c]!));
    expect(dist(moved.positions, 0, g.perm[0]!, g.perm[1]!)).toBeCloseTo(dist(s.positions, 0, 0, 1), 10);
  });

  it('every model is a spec; the equivariant one has a defect at float32 rounding, the plain GNN does not', () => {
    for (const m of ['attention', 'segnn', 'segnn-attention', 'gnn', 'mlp', 'linear'] as const) {
      const spec = nbodySpec(m, { hidden: '4x0e+2x1o', layers: 2, width: 8 });
      expect(String(parseSpec(spec))).toBe(spec);
    }
    const f = parseSpec(nbodySpec('segnn', { hidden: '4x0e+2x1o', layers: 2 }));
    const gnn = parseSpec(nbodySpec('gnn', { width: 8, layers: 2 }));
    const de = nbodyEquivarianceDefect(f, f.init(1), s, formatOf('segnn'), new Rng(2));
    const att = parseSpec(nbodySpec('attention', { hidden: '4x0e+2x1o', layers: 2 }));
    expect(nbodyEquivarianceDefect(att, att.init(1), s, formatOf('attention'), new Rng(2))).toBeLessThan(1e-9);
    const dg = nbodyEquivarianceDefect(gnn, gnn.init(1), s, formatOf('gnn'), new Rng(2));
    expect(de).toBeLessThan(1e-9);
    expect(dg).toBeGreaterThan(1e-3);
  });

  it('a short run trains (the loss falls) and reports the test MSE at the best validation epoch', () => {
    const r = nbodyRun('segnn', { train: 40, valid: 20, test: 20, epochs: 4, evalEvery: 2, batch: 20, hidden: '4x0e+2x1o', layers: 2, lr: 3e-3 });
    expect([2, 4]).toContain(r.bestEpoch);
    expect(r.testMSE).toBeGreaterThan(0);
    expect(r.equivarianceDefect).toBeLessThan(1e-9);
    expect(r.parameters).toBeGreaterThan(0);
  });
});

describe('paralens equivariant train --task nbody', () => {
  it('--json prints one object with per-seed rows, a spread per model and the published numbers', async () => {
    const r = await cli(
      'equivariant',
      'train',
      '--task',
      'nbody',
      '--model',
      'segnn,linear',
      '--seeds',
      '2',
      '--train',
      '20',
      '--valid',
      '10',
      '--test',
      '10',
      '--epochs',
      '2',
      '--eval-every',
      '1',
      '--batch',
      '10',
      '--irreps',
      '2x0e+1x1o',
      '--layers',
      '2',
      '--json',
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.rows.length).toBe(4);
    expect(j.summary.map((s: { model: string }) => s.model)).toEqual(['segnn', 'linear']);
    expect(j.summary[0].seeds).toBe(2);
    expect(j.published.find((p: { model: string }) => p.model === 'EGNN').mse).toBe(0.0071);
    // --json silences the progress on stderr; without it each seed is announced
    const t = await cli(
      'equivariant',
      'train',
      '--task',
      'nbody',
      '--model',
      'linear',
      '--seeds',
      '2',
      '--train',
      '20',
      '--valid',
      '10',
      '--test',
      '10',
      '--epochs',
      '1',
      '--eval-every',
      '1',
    );
    expect(t.err).toContain('nbody linear seed 1');
    expect(t.out).toContain('published: Linear 0.0819');
  });
  it('an unknown model exits 2', async () => {
    const r = await cli('equivariant', 'train', '--task', 'nbody', '--model', 'transformer');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--model must be among/);
  });
});
