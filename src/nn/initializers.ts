import type { Initializer } from '../para/para.js';

/** Glorot (Xavier) uniform: U(−a, a) with a = √(6 / (fanIn + fanOut)). */
export const glorotUniform =
  (fanIn: number, fanOut: number): Initializer =>
  (rng, out) => {
    const a = Math.sqrt(6 / (fanIn + fanOut));
    for (let i = 0; i < out.length; i++) out[i] = (2 * rng.uniform() - 1) * a;
  };

/** He (Kaiming) normal: N(0, 2 / fanIn), for ReLU layers. */
export const heNormal =
  (fanIn: number): Initializer =>
  (rng, out) => {
    const s = Math.sqrt(2 / fanIn);
    for (let i = 0; i < out.length; i++) out[i] = rng.normal() * s;
  };

/** PyTorch's default for Linear and Conv (kaiming_uniform with a = √5): U(−1/√fanIn, 1/√fanIn). */
export const torchDefaultUniform =
  (fanIn: number): Initializer =>
  (rng, out) => {
    const a = 1 / Math.sqrt(fanIn);
    for (let i = 0; i < out.length; i++) out[i] = (2 * rng.uniform() - 1) * a;
  };

export const constant =
  (value: number): Initializer =>
  (_rng, out) => {
    out.fill(value);
  };

export const zeros: Initializer = constant(0);

/** N(mean, std²). */
export const normal =
  (std: number, mean = 0): Initializer =>
  (rng, out) => {
    for (let i = 0; i < out.length; i++) out[i] = mean + std * rng.normal();
  };
