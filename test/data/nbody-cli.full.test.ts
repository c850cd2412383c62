import { describe, expect, it } from 'vitest';
import { nbodyData, NBODY } from '../../src/data/nbody.js';
import { cli } from '../cli/helpers.js';

/** --data nbody: EGNN's charged particles with its split sizes, as point clouds, from the command line (full tier: it simulates 7 000 trajectories). */
describe('--data nbody', () => {
  it('has 3000/2000/2000 point clouds [5,11] → positions [5,3], the same every time', () => {
    const a = nbodyData(),
      b = nbodyData({ train: 10, valid: 10, test: 10 });
    expect([a.train.x.batch, a.valid.x.batch, a.test.x.batch]).toEqual([NBODY.train, NBODY.valid, NBODY.test]);
    expect(a.train.x.shape.slice(1)).toEqual([5, 11]);
    expect(a.test.y.shape.slice(1)).toEqual([5, 3]);
    expect(Array.from(b.train.x.data.subarray(0, 55))).toEqual(Array.from(a.train.x.data.subarray(0, 55)));
  }, 600_000);

  it('train --data nbody reports the validation and test MSE of a point-cloud model', async () => {
    const model = 'points_linear(5,2x0e+2x1o,4x0e+2x1o) >> attention(4x0e+2x1o,2,points(5)) >> points_linear(5,4x0e+2x1o,1x1o) >> displace(5)';
    const r = await cli('train', '--model', model, '--data', 'nbody', '--epochs', '2', '--batch', '100', '--optimizer', 'adam', '--lr', '0.01', '--json');
    expect(r.code, r.err).toBe(0);
    const j = r.json();
    expect(j.rows).toEqual({ train: 3000, validation: 2000, test: 2000 });
    expect(j.loss).toBe('mse');
    // better than not moving at all (the test MSE of predicting x itself is 0.27; one epoch at lr 3e-3 is not: 0.32)
    expect(j.test_loss).toBeLessThan(0.2);
  }, 600_000);
});
