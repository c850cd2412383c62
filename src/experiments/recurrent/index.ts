export { FORMULAS, FORMULA_VOCABULARY, formulaIds, formulaSet, formulaText, randomFormula } from './expressions.js';
export type { Formula } from './expressions.js';
export { runTreeTask, TEST_SETS } from './tree-task.js';
export type { TreeTaskOptions, TreeTaskResult } from './tree-task.js';
