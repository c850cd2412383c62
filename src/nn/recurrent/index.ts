export type { Cell, CellRun } from './cell.js';
export { cutBefore } from './cell.js';
export { MAX_RECURRENT_FLOATS } from './frame.js';
export { lstmCell } from './lstm.js';
export { gruCell } from './gru.js';
export { rnnCell } from './rnn.js';
export { mguCell } from './mgu.js';
export { cellMorphism, cellOf } from './morphism.js';
export { swap, stop, unrolled } from './unroll.js';
export { sequenceLayer } from './layers.js';
export { unfold } from './unfold.js';
export { stack } from './stack.js';
export { bidirectional, reverseName } from './bidirectional.js';
export { scanStepper } from './stepper.js';
export { StateCarry, checkBptt, regimeOf, withRegime } from './regime.js';
export type { RecurrentRegime } from './regime.js';
export { describeRecurrent, hasRecurrentLayers, recurrentInfo, recurrentParts } from './known.js';
export type { RecurrentInfo } from './known.js';
export {
  CELLS,
  RECURRENT_LAYERS,
  bidirectionalOf,
  cellAsMorphism,
  cellFrom,
  fold,
  gru,
  lstm,
  mgu,
  namedCell,
  recurrentLayer,
  rnn,
  scan,
  stackOf,
  unfoldOf,
} from './named.js';
export type { RecurrentLayer } from './named.js';
export { binaryTrees, foldTrees, initAlgebra, listAlgebra, lists, listTree, polynomial, treeAlgebra } from './polynomial.js';
export type { Constructor, PolynomialFunctor, Tree, TreeAlgebra, TreeFoldLens } from './polynomial.js';
export type { Naming } from './layers.js';
