import { RangeArgError } from '../errors.js';
import { Rng } from '../random/rng.js';

/**
 * The charged-particle simulation of Kipf et al.'s NRI (ICML 2018, §5.1, `ChargedParticlesSim`)
 * in the 3-D form EGNN uses (Satorras, Hoogeboom & Welling, ICML 2021, §5.1 and App. C):
 * `particles` bodies with charges ±1 (probability ½ each), initial positions N(0, σ²I₃) with
 * σ = (particles/5)^{1/3}, initial velocities of norm 0.5 in uniformly random directions, and
 * the Coulomb force F_i = Σ_{j≠i} q_i q_j (x_i − x_j)/|x_i − x_j|³ (like charges repel),
 * each component clipped to ±0.1/Δt, integrated by leapfrog with Δt = 0.001 (the velocity
 * half a step behind the position), no walls. Written from that description and deterministic
 * by seed; not numerically identical to the NumPy original (another random generator).
 */
export interface NBodyOptions {
  readonly particles?: number;
  /** Steps between saved frames (100 in NRI and EGNN). */
  readonly sampleEvery?: number;
  readonly dt?: number;
  readonly velocityNorm?: number;
  readonly interaction?: number;
}

/** One trajectory: frames of positions and velocities (frame k = the state after (k+1)·sampleEvery steps, as NRI saves them) and the charges. */
export interface NBodyTrajectory {
  readonly particles: number;
  readonly charges: Float64Array;
  /** frames × particles × 3. */
  readonly positions: Float64Array;
  readonly velocities: Float64Array;
  readonly frames: number;
}

/** The largest system the simulator runs (all pairs are computed each step). */
const MAX_PARTICLES = 64;

function forces(x: Float64Array, q: Float64Array, n: number, strength: number, maxF: number, F: Float64Array): void {
  F.fill(0);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const dx = x[3 * i]! - x[3 * j]!,
        dy = x[3 * i + 1]! - x[3 * j + 1]!,
        dz = x[3 * i + 2]! - x[3 * j + 2]!;
      const r2 = dx * dx + dy * dy + dz * dz;
      const s = (strength * q[i]! * q[j]!) / (r2 * Math.sqrt(r2));
      F[3 * i]! += s * dx;
      F[3 * i + 1]! += s * dy;
      F[3 * i + 2]! += s * dz;
    }
  for (let k = 0; k < 3 * n; k++) F[k] = Math.max(-maxF, Math.min(maxF, F[k]!));
}

/** Simulates one trajectory of `frames` saved frames (frames·sampleEvery steps). */
export function simulateCharged(rng: Rng, frames: number, opts: NBodyOptions = {}): NBodyTrajectory {
  const n = opts.particles ?? 5,
    every = opts.sampleEvery ?? 100,
    dt = opts.dt ?? 0.001;
  if (!(Number.isInteger(n) && n >= 2 && n <= MAX_PARTICLES)) throw new RangeArgError(`nbody: particles must be an integer in 2 … ${MAX_PARTICLES}, got ${n}`);
  if (!(Number.isInteger(frames) && frames >= 1 && frames <= 10000)) throw new RangeArgError(`nbody: frames must be an integer in 1 … 10000, got ${frames}`);
  const vnorm = opts.velocityNorm ?? 0.5,
    strength = opts.interaction ?? 1,
    maxF = 0.1 / dt;
  const sigma = Math.cbrt(n / 5);
  const q = Float64Array.from({ length: n }, () => (rng.uniform() < 0.5 ? -1 : 1));
  const x = new Float64Array(3 * n),
    v = new Float64Array(3 * n),
    F = new Float64Array(3 * n);
  for (let k = 0; k < 3 * n; k++) x[k] = sigma * rng.normal();
  for (let i = 0; i < n; i++) {
    const a = rng.normal(),
      b = rng.normal(),
      c = rng.normal(),
      r = Math.hypot(a, b, c);
    v[3 * i] = (vnorm * a) / r;
    v[3 * i + 1] = (vnorm * b) / r;
    v[3 * i + 2] = (vnorm * c) / r;
  }
  const positions = new Float64Array(frames * 3 * n),
    velocities = new Float64Array(frames * 3 * n);
  // half step of the leapfrog: v ← v + Δt·F(x)
  forces(x, q, n, strength, maxF, F);
  for (let k = 0; k < 3 * n; k++) v[k]! += dt * F[k]!;
  let saved = 0;
  for (let step = 1; saved < frames; step++) {
    for (let k = 0; k < 3 * n; k++) x[k]! += dt * v[k]!;
    if (step % every === 0) {
      positions.set(x, saved * 3 * n);
      velocities.set(v, saved * 3 * n);
      saved++;
    }
    forces(x, q, n, strength, maxF, F);
    for (let k = 0; k < 3 * n; k++) v[k]! += dt * F[k]!;
  }
  return { particles: n, charges: q, positions, velocities, frames };
}
