import { byName } from '../errors.js';

/** A learning-rate schedule: the rate at step t given the base rate. */
export type Schedule = (t: number, base: number) => number;

export const constantLr: Schedule = (_t, base) => base;

/** Multiply by `gamma` every `every` steps. */
export const stepDecay =
  (every: number, gamma: number): Schedule =>
  (t, base) =>
    base * Math.pow(gamma, Math.floor(t / every));

/** Cosine annealing from base to `min` over `total` steps (then stays at min). */
export const cosine =
  (total: number, min = 0): Schedule =>
  (t, base) =>
    t >= total ? min : min + 0.5 * (base - min) * (1 + Math.cos((Math.PI * t) / total));

/** Linear warm-up over `steps`, then `after`. */
export const warmup =
  (steps: number, after: Schedule = constantLr): Schedule =>
  (t, base) =>
    t < steps ? (base * (t + 1)) / steps : after(t - steps, base);

/**
 * The schedules the command line names, over a run of `total` optimiser steps:
 *   constant  the base rate throughout
 *   cosine    cosine annealing from the base rate to 0 over the run
 *   step      ×0.1 after each third of the run
 *   warmup    a linear warm-up over the first 5 % of the steps, then cosine to 0
 */
const NAMED: Record<string, (total: number) => Schedule> = {
  constant: () => constantLr,
  cosine: (total) => cosine(total),
  step: (total) => stepDecay(Math.max(1, Math.ceil(total / 3)), 0.1),
  warmup: (total) => {
    const w = Math.max(1, Math.round(total * 0.05));
    return warmup(w, cosine(Math.max(1, total - w)));
  },
};

export function scheduleNames(): string[] {
  return Object.keys(NAMED);
}

/** A named schedule over `total` steps; unknown names throw, listing the known ones. */
export function scheduleByName(name: string, total: number): Schedule {
  return byName('schedule', NAMED, name)(total);
}
