/** A learning-rate schedule: the rate at step t given the base rate. */
export type Schedule = (t: number, base: number) => number;

export const constantLr: Schedule = (_t, base) => base;

/** Multiply by `gamma` every `every` steps. */
export const stepDecay = (every: number, gamma: number): Schedule => (t, base) => base * Math.pow(gamma, Math.floor(t / every));

/** Cosine annealing from base to `min` over `total` steps (then stays at min). */
export const cosine = (total: number, min = 0): Schedule => (t, base) =>
  t >= total ? min : min + 0.5 * (base - min) * (1 + Math.cos((Math.PI * t) / total));

/** Linear warm-up over `steps`, then `after`. */
export const warmup = (steps: number, after: Schedule = constantLr): Schedule => (t, base) =>
  t < steps ? (base * (t + 1)) / steps : after(t - steps, base);
