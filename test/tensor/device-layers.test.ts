import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/catalogue/index.js';
import { hostOnlyParts } from '../../src/tensor/device-layers.js';

// Which layers a device backend runs is declared beside the backends, by kind
// (src/tensor/device-layers.ts); that each declared layer really runs there is
// test/tensor/webgpu-layers.full.test.ts (on a device).
describe('the layers a device backend runs', () => {
  it.each([
    'dense(2,4) >> relu >> dense(4,1) >> sigmoid',
    'conv2d(1,4,3,1,1) >> relu >> maxpool2d(2) >> flatten >> dense(64,4) >> softmax',
    'copy(4) >> (dense(4,3) @ dense(4,3)) >> add(3)',
    'residual(dense(4,4) >> tanh) >> copy(4) >> (discard(4) @ id(4))',
    'embedding(7,8) >> transformer(8,2,16,rope) >> layernorm(8) >> rmsnorm(8) >> attention(8,2,none,none) >> dense(8,7)',
    'conv1d(2,3,3,1,1) >> gelu >> softplus >> avgpool2d(1)',
  ])('%s: all of it', (spec) => {
    expect(hostOnlyParts(parseSpec(spec))).toEqual([]);
  });

  it('names each part that computes on host arrays, inside composites too', () => {
    expect(hostOnlyParts(parseSpec('dense(2,4) >> leaky_relu(0.1) >> dense(4,1)'))).toEqual(['leaky_relu(0.1)']);
    expect(hostOnlyParts(parseSpec('embedding(7,8) >> transformer(8,2,16,relative) >> dense(8,7)'))).toEqual(['attention(8,2,relative)']);
    expect(hostOnlyParts(parseSpec('residual(attention(8,2,absolute(8)))'))).toEqual(['attention(8,2,absolute(8))']);
    // a combinator that is not declared (its own work is host code) is named whole, factors and all
    expect(hostOnlyParts(parseSpec('reparam(dense(3,3) >> tanh >> dense(3,3), tie((0,2)))'))).toEqual([
      'reparam(dense(3,3) >> tanh >> dense(3,3), tie((0,2)))',
    ]);
    expect(hostOnlyParts(parseSpec('map(dense(2,3),4) >> sum_pool'))).toEqual(['map(dense(2,3),4)', 'sum_pool']);
    expect(hostOnlyParts(parseSpec('e3_conv(3,1x0e+1x1o,2x0e+1x1o,1x0e+1x1o,1)'))).toEqual(['e3_conv(3,1x0e+1x1o,2x0e+1x1o,1x0e+1x1o,1)']);
  });
});
