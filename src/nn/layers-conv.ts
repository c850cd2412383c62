import { defineLayer } from '../para/spec.js';
import { avgpool2d } from './avgpool2d.js';
import { conv1d } from './conv1d.js';
import { conv2d } from './conv2d.js';
import { flatten } from './flatten.js';
import { globalavgpool } from './globalavgpool.js';
import { maxpool2d } from './maxpool2d.js';

const opt = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);

defineLayer({
  name: 'conv2d',
  args: ['int', 'int', 'int', 'int?', 'int?'],
  doc: 'conv2d(inC,outC,k,stride,pad): 2-d convolution [inC,H,W] → [outC,H′,W′], stride 1 and pad 0 by default',
  make: (i, o, k, s, p) => conv2d(i as number, o as number, k as number, opt(s, 1), opt(p, 0)),
});
defineLayer({
  name: 'conv1d',
  args: ['int', 'int', 'int', 'int?', 'int?'],
  doc: 'conv1d(inC,outC,k,stride,pad): 1-d convolution [inC,L] → [outC,L′], stride 1 and pad 0 by default',
  make: (i, o, k, s, p) => conv1d(i as number, o as number, k as number, opt(s, 1), opt(p, 0)),
});
defineLayer({
  name: 'maxpool2d',
  args: ['int', 'int?'],
  doc: 'maxpool2d(k,stride): maximum over k×k windows of [C,H,W], stride k by default',
  make: (k, s) => maxpool2d(k as number, opt(s, k as number)),
});
defineLayer({
  name: 'avgpool2d',
  args: ['int', 'int?'],
  doc: 'avgpool2d(k,stride): mean over k×k windows of [C,H,W], stride k by default',
  make: (k, s) => avgpool2d(k as number, opt(s, k as number)),
});
defineLayer({ name: 'flatten', args: [], doc: 'flatten: [C,H,W] → [C·H·W] (row-major)', make: () => flatten() });
defineLayer({ name: 'globalavgpool', args: [], doc: 'globalavgpool: [C,H,W] → [C], the mean of each channel', make: () => globalavgpool() });
