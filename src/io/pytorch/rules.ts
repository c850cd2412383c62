import type { Para } from '../../para/para.js';
import { ruleTable } from '../../rule-table.js';
import { equivariantNonlinearRules } from './rules-equivariant-nonlinear.js';
import { equivariantRules } from './rules-equivariant.js';
import { nnRules } from './rules-nn.js';
import { recurrentRules } from './rules-recurrent.js';
import { sequenceRules } from './rules-sequence.js';
import { setRules } from './rules-sets.js';
import { stochasticRules } from './rules-stochastic.js';
import { structureRules } from './rules-structure.js';
import { notExportable } from './torch-module.js';
import type { TorchModule, TorchRule, TorchRuleSet } from './torch-module.js';

/** Every family's PyTorch rules, listed here (nothing registers itself by being imported). */
const FAMILIES: readonly TorchRuleSet[] = [
  structureRules,
  nnRules,
  stochasticRules,
  setRules,
  equivariantRules,
  equivariantNonlinearRules,
  sequenceRules,
  recurrentRules,
];

/** The PyTorch export concern's rule table: layer kind → rule. */
export const TORCH_RULES = ruleTable<TorchRule>(
  'PyTorch export',
  FAMILIES.map((f) => f.rules),
);
/** The Python classes of layer families defined outside paralens (the built-in ones are python/layers.py's). */
const definedHelpers = new Map<string, string>();

/** Adds the rules (and helper classes) of a layer family defined outside paralens. */
export function defineTorchRules(set: TorchRuleSet): void {
  for (const [k, r] of Object.entries(set.rules)) TORCH_RULES.define(k, r);
  for (const [k, s] of Object.entries(set.helpers ?? {})) definedHelpers.set(k, s);
}

export function torchKinds(): string[] {
  return TORCH_RULES.kinds();
}

/** The Python source of a helper class given with defineTorchRules, if any. */
export function definedHelper(name: string): string | undefined {
  return definedHelpers.get(name);
}

/** Every sub-morphism (outermost first) whose kind has no rule: all of them, so one refusal names each. */
function unexportableParts(m: Para): string[] {
  if (!TORCH_RULES.has(m.kind)) return [String(m)];
  return m.children.flatMap(unexportableParts);
}

/** The PyTorch module of a morphism (domain fixed); refuses, naming every part without a rule. */
export function torchModule(m: Para): TorchModule {
  const missing = unexportableParts(m);
  if (missing.length) throw notExportable([...new Set(missing)], torchKinds());
  const emit = (c: Para): TorchModule => TORCH_RULES.get(c.kind)!({ m: c, emit });
  return emit(m);
}
