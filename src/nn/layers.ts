import { RangeArgError } from '../errors.js';
import { defineLayer } from '../para/spec.js';
import { elementwise } from './activation.js';
import { dense } from './dense.js';
import { leakyRelu } from './leaky-relu.js';
import { softmax } from './softmax.js';

defineLayer({ name: 'dense', args: ['int', 'int'], doc: 'dense(in,out): affine map x ↦ x·Wᵀ + b', make: (i, o) => dense(i as number, o as number) });
const size = (n: unknown, layer: string): number[] | undefined => {
  if (n === undefined) return undefined;
  if (!((n as number) >= 1)) throw new RangeArgError(`${layer}: the size must be a positive integer, got ${n}`);
  return [n as number];
};

for (const op of ['sigmoid', 'tanh', 'relu', 'gelu', 'softplus'] as const) {
  defineLayer({ name: op, args: ['int?'], doc: `${op} or ${op}(n): elementwise ${op} (n features; inferred when composed)`, make: (n) => elementwise(op, size(n, op)) });
}
defineLayer({
  name: 'leaky_relu',
  args: ['number?', 'int?'],
  doc: 'leaky_relu(alpha[,n]): x ↦ max(x, alpha·x), alpha defaults to 0.01',
  make: (a, n) => leakyRelu(a === undefined ? 0.01 : (a as number), size(n, 'leaky_relu')),
});
defineLayer({ name: 'softmax', args: ['int?'], doc: 'softmax or softmax(n): normalised exponentials over the last axis', make: (n) => softmax(size(n, 'softmax')) });
