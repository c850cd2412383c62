import { defineLayer } from '../para/spec.js';
import { elementwise } from './activation.js';
import { dense } from './dense.js';
import { leakyRelu } from './leaky-relu.js';
import { softmax } from './softmax.js';

defineLayer({ name: 'dense', args: ['int', 'int'], doc: 'dense(in,out): affine map x ↦ x·Wᵀ + b', make: (i, o) => dense(i as number, o as number) });
for (const op of ['sigmoid', 'tanh', 'relu', 'gelu', 'softplus'] as const) {
  defineLayer({ name: op, args: [], doc: `${op}: elementwise ${op}`, make: () => elementwise(op) });
}
defineLayer({ name: 'leaky_relu', args: ['number?'], doc: 'leaky_relu(alpha): x ↦ max(x, alpha·x), alpha defaults to 0.01', make: (a) => leakyRelu(a === undefined ? 0.01 : (a as number)) });
defineLayer({ name: 'softmax', args: [], doc: 'softmax: normalised exponentials over the last axis', make: () => softmax() });
