/**
 * A seeded, splittable pseudo-random generator: xoshiro128** (Blackman & Vigna), seeded
 * through splitmix32. Only 32-bit integer arithmetic, so Node and browsers produce
 * identical bits. `split()` derives an independent child stream without disturbing the
 * parent's sequence beyond the two draws it takes. Every stochastic function in paralens takes an Rng;
 * none reads a global.
 */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number | readonly number[] = 0) {
    if (typeof seed === 'number') {
      let x = seed >>> 0;
      const next = (): number => {
        x = (x + 0x9e3779b9) | 0;
        let z = x;
        z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
        z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
        return (z ^ (z >>> 16)) >>> 0;
      };
      this.s0 = next();
      this.s1 = next();
      this.s2 = next();
      this.s3 = next();
    } else {
      [this.s0, this.s1, this.s2, this.s3] = seed.map((v) => v >>> 0) as [number, number, number, number];
    }
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The generator's state, to save in a checkpoint; `new Rng(state)` resumes it. */
  state(): number[] {
    return [this.s0, this.s1, this.s2, this.s3];
  }

  /** A uniformly random 32-bit unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 bits of randomness. */
  uniform(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  /** Standard normal N(0, 1) by Box–Muller. */
  normal(): number {
    const u1 = 1 - this.uniform(); // (0, 1]
    const u2 = this.uniform();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  /** 1 with probability p, else 0. */
  bernoulli(p: number): number {
    return this.uniform() < p ? 1 : 0;
  }

  /** An index drawn with the given (unnormalised, non-negative) weights. */
  categorical(weights: ArrayLike<number>): number {
    let total = 0;
    for (let i = 0; i < weights.length; i++) total += weights[i]!;
    let u = this.uniform() * total;
    for (let i = 0; i < weights.length; i++) {
      u -= weights[i]!;
      if (u < 0) return i;
    }
    return weights.length - 1;
  }

  /** An independent child generator. */
  split(): Rng {
    return new Rng((this.nextUint32() ^ Math.imul(this.nextUint32(), 0x2545f491)) >>> 0);
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T>(xs: T[] | Int32Array | Uint32Array): typeof xs {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = xs[i]!;
      xs[i] = xs[j]!;
      xs[j] = t;
    }
    return xs;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
