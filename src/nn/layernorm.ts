import { primitive } from '../para/composite.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { constant, zeros } from './initializers.js';
import { lastAxis, normLens } from './norm-lens.js';

/**
 * layernorm(d): y = g ⊙ (x − μ)/√(σ² + ε) + b over the last axis (Ba, Kiros & Hinton 2016;
 * PyTorch's nn.LayerNorm(d), ε = 1e-5), gain g [d] (ones) and bias b [d] (zeros). On
 * [*, …, d] it normalises every position; it takes any such shape until composed.
 */
export function layernorm(d: number, lead?: Shape): Para {
  requirePositive(`layernorm(${d})`, 'width d', d);
  const self: Para = primitive({
    kind: 'layernorm',
    args: [d],
    dom: lead && [...lead, d],
    cod: lead && [...lead, d],
    params: [
      { name: 'gain', shape: [d], init: constant(1) },
      { name: 'bias', shape: [d], init: zeros },
    ],
    positionwise: true,
    at: (s) => layernorm(d, lastAxis(`layernorm(${d})`, s, d)),
    forward: (theta, x, ctx) => normLens(self, true, theta, x, ctx),
  });
  return self;
}
