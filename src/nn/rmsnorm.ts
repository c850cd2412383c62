import { primitive } from '../para/composite.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { constant } from './initializers.js';
import { lastAxis, normLens } from './norm-lens.js';

/**
 * rmsnorm(d): y = g ⊙ x/√(mean(x²) + ε) over the last axis (Zhang & Sennrich 2019), gain
 * g [d] (ones), ε = 1e-5; no centring, no bias. On [*, …, d] it normalises every position; it takes any such shape until composed.
 */
export function rmsnorm(d: number, lead?: Shape): Para {
  requirePositive(`rmsnorm(${d})`, 'width d', d);
  const self: Para = primitive({
    kind: 'rmsnorm',
    args: [d],
    dom: lead && [...lead, d],
    cod: lead && [...lead, d],
    params: [{ name: 'gain', shape: [d], init: constant(1) }],
    positionwise: true,
    at: (s) => rmsnorm(d, lastAxis(`rmsnorm(${d})`, s, d)),
    forward: (theta, x, ctx) => normLens(self, false, theta, x, ctx),
  });
  return self;
}
