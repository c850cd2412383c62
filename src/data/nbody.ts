import { RangeArgError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';
import type { Dataset } from './dataset.js';
import { simulateCharged } from './nbody-sim.js';

/**
 * The N-body charged-particle benchmark of EGNN (Satorras, Hoogeboom & Welling, ICML 2021,
 * §5.1, Table 2), as SEGNN (Brandstetter et al., ICLR 2022, §5.2) also runs it: 5 particles,
 * input = positions and velocities at frame 30 (3 100 steps) and the charges, target = the
 * positions at frame 40, 1 000 steps (Δt = 0.001) later; 3 000 training trajectories, 2 000
 * for validation and 2 000 for testing; the test MSE is reported at the epoch of the best
 * validation MSE.
 */
export const NBODY = { particles: 5, inputFrame: 30, targetFrame: 40, train: 3000, valid: 2000, test: 2000 } as const;

/** The raw samples: per trajectory the frame-30 state, the charges and the frame-40 positions. */
export interface NBodySamples {
  readonly count: number;
  /** count × 5 × 3 each. */
  readonly positions: Float64Array;
  readonly velocities: Float64Array;
  readonly charges: Float64Array;
  readonly targets: Float64Array;
}

/** `count` trajectories from the simulator, deterministic by seed (each trajectory its own split stream). */
export function nbodySamples(count: number, seed: number): NBodySamples {
  if (!(Number.isInteger(count) && count >= 1 && count <= 100000))
    throw new RangeArgError(`nbody: the number of trajectories must be an integer in 1 … 100000, got ${count}`);
  const n = NBODY.particles,
    P = n * 3;
  const rng = new Rng(seed);
  const positions = new Float64Array(count * P),
    velocities = new Float64Array(count * P),
    targets = new Float64Array(count * P),
    charges = new Float64Array(count * n);
  for (let s = 0; s < count; s++) {
    const t = simulateCharged(rng.split(), NBODY.targetFrame + 1, { particles: n });
    positions.set(t.positions.subarray(NBODY.inputFrame * P, (NBODY.inputFrame + 1) * P), s * P);
    velocities.set(t.velocities.subarray(NBODY.inputFrame * P, (NBODY.inputFrame + 1) * P), s * P);
    targets.set(t.positions.subarray(NBODY.targetFrame * P, (NBODY.targetFrame + 1) * P), s * P);
    charges.set(t.charges, s * n);
  }
  return { count, positions, velocities, charges, targets };
}

/** How each model reads a sample. */
export type NBodyFormat = 'cloud' | 'nodes' | 'flat';

/** Node features of the equivariant model, in the irreps 2x0e+2x1o: charge, |v| (0e), v and x − x̄ (1o), as SEGNN's input. */
export const NBODY_CLOUD_IRREPS = '2x0e+2x1o';

/**
 * The samples as a data set: `cloud` [N, 5, 3 + 8] = position, then the features q, |v|, v,
 * x − x̄ (a point cloud for e3_conv); `nodes` [N, 5, 7] = x, v, q per particle (the plain
 * GNN); `flat` [N, 35] (the MLP and the linear model). Targets are the positions [N, 5, 3]
 * (flat: [N, 15]).
 */
export function nbodyDataset(s: NBodySamples, format: NBodyFormat = 'cloud', name = 'nbody'): Dataset {
  const n = NBODY.particles,
    N = s.count;
  const width = format === 'cloud' ? 11 : 7;
  const x = Tensor.zeros(format === 'flat' ? [N, n * 7] : [N, n, width]);
  const y = Tensor.zeros(format === 'flat' ? [N, n * 3] : [N, n, 3]);
  y.data.set(s.targets);
  for (let b = 0; b < N; b++) {
    const mean = [0, 1, 2].map((c) => {
      let m = 0;
      for (let i = 0; i < n; i++) m += s.positions[(b * n + i) * 3 + c]!;
      return m / n;
    });
    for (let i = 0; i < n; i++) {
      const o = (b * n + i) * width,
        p = (b * n + i) * 3;
      const pos = s.positions.subarray(p, p + 3),
        vel = s.velocities.subarray(p, p + 3),
        q = s.charges[b * n + i]!;
      if (format === 'cloud') {
        x.data.set(pos, o);
        x.data[o + 3] = q;
        x.data[o + 4] = Math.hypot(vel[0]!, vel[1]!, vel[2]!);
        x.data.set(vel, o + 5);
        for (let c = 0; c < 3; c++) x.data[o + 8 + c] = pos[c]! - mean[c]!;
      } else {
        x.data.set(pos, o);
        x.data.set(vel, o + 3);
        x.data[o + 6] = q;
      }
    }
  }
  return { name, x, y };
}

/** The data seeds of the three splits (EGNN's nbody_small seed 43 for training; our generator differs from NumPy's). */
export const NBODY_SEEDS = { train: 43, valid: 44, test: 45 } as const;

/**
 * `--data nbody`: EGNN's charged-particle task with its split sizes — 3 000 training, 2 000
 * validation and 2 000 test trajectories, each split from its own seed — as point clouds
 * ([N, 5, 3 + 8]: position, then q, |v|, v, x − x̄, the irreps 2x0e+2x1o) with the positions
 * 1 000 steps later as targets ([N, 5, 3]). Simulating the 7 000 trajectories takes a few seconds.
 */
export function nbodyData(sizes: { train?: number; valid?: number; test?: number } = {}): { train: Dataset; valid: Dataset; test: Dataset } {
  return {
    train: nbodyDataset(nbodySamples(sizes.train ?? NBODY.train, NBODY_SEEDS.train), 'cloud', 'nbody'),
    valid: nbodyDataset(nbodySamples(sizes.valid ?? NBODY.valid, NBODY_SEEDS.valid), 'cloud', 'nbody/validation'),
    test: nbodyDataset(nbodySamples(sizes.test ?? NBODY.test, NBODY_SEEDS.test), 'cloud', 'nbody/test'),
  };
}
