import type { Para } from '../para/para.js';
import { bidirectionalOf, fold, namedCell, RECURRENT_LAYERS, recurrentLayer, scan, stackOf, stop, swap, unfoldOf } from '../nn/recurrent/index.js';
import type { LayerDef } from './grammar.js';

const n = (v: unknown): number => v as number;
const opt = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

const WHAT = {
  rnn: 'Elman RNN, h′ = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh) (nn.RNN)',
  lstm: 'LSTM, gates i,f,g,o; state (h, c) (nn.LSTM)',
  gru: 'GRU, gates r,z,n (nn.GRU)',
  mgu: 'minimal gated unit, gates f,n (Zhou et al. 2016)',
} as const;

const defs: LayerDef[] = [];
for (const kind of RECURRENT_LAYERS) {
  defs.push({
    name: kind,
    args: ['int', 'int'],
    doc: `${kind}(in,h): [T,in] → [T,h], the ${WHAT[kind]} scanned from the zero state; PyTorch's parameter layout`,
    make: (i, h) => recurrentLayer(kind, n(i), n(h)),
  });
  defs.push({
    name: `${kind}_cell`,
    args: ['int', 'int'],
    doc: `${kind}_cell(in,h): one step of the ${kind} as a morphism state ⊗ input → state ⊗ output, [S+in] → [S+h]`,
    make: (i, h) => namedCell(kind, n(i), n(h)),
  });
}
defs.push({
  name: 'scan',
  args: ['morphism', 'int?'],
  doc: 'scan(cell[,S]): [T,A] → [T,B], every output of a cell [S+A] → [S+B] along the sequence (S for a morphism that is not a named cell)',
  make: (f, S) => scan(f as Para, opt(S)),
});
defs.push({
  name: 'fold',
  args: ['morphism', 'int?'],
  doc: 'fold(cell[,S]): [T,A] → [S], the final state: the catamorphism of the cell from the zero state',
  make: (f, S) => fold(f as Para, opt(S)),
});
defs.push({
  name: 'unfold',
  args: ['morphism', 'int', 'int?'],
  doc: 'unfold(cell,T[,S]): [S+A] → [T,B], the anamorphism: T steps from a state, each output fed back as the next input',
  make: (f, T, S) => unfoldOf(f as Para, n(T), opt(S)),
});
defs.push({
  name: 'bidirectional',
  args: ['morphism'],
  doc: 'bidirectional(layer): [T,A] → [T,2B], a recurrent layer forwards and a copy backwards in time, side by side',
  make: (f) => bidirectionalOf(f as Para),
});
defs.push({
  name: 'stack',
  args: ['morphism', 'morphism', 'morphism?', 'morphism?'],
  doc: 'stack(c1,c2,…): cells stacked in depth as one cell (scan(stack(c1,c2)) = scan(c1) >> scan(c2))',
  make: (...fs) => stackOf(fs.filter((f) => f !== undefined) as Para[]),
});
defs.push({ name: 'swap', args: ['int', 'int'], doc: 'swap(a,b): [a+b] → [b+a], the braiding of the monoidal product', make: (a, b) => swap(n(a), n(b)) });
defs.push({
  name: 'stop',
  args: ['int'],
  doc: 'stop(n): the identity on n features with a zero pullback (the stop-gradient of truncated BPTT)',
  make: (k) => stop(n(k)),
});

/** The recurrent layers, cells and combinators (listed in src/catalogue/catalogue.ts). */
export const recurrentLayers: readonly LayerDef[] = defs;
