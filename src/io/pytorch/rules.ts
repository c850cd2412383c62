import type { Para } from '../../para/para.js';
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

const rules = new Map<string, TorchRule>(FAMILIES.flatMap((f) => Object.entries(f.rules)));
const helpers = new Map<string, string>(FAMILIES.flatMap((f) => Object.entries(f.helpers ?? {})));

/** Adds the rules (and helper classes) of a layer family defined outside paralens. */
export function defineTorchRules(set: TorchRuleSet): void {
  for (const [k, r] of Object.entries(set.rules)) rules.set(k, r);
  for (const [k, s] of Object.entries(set.helpers ?? {})) helpers.set(k, s);
}

export function torchKinds(): string[] {
  return [...rules.keys()].sort();
}

/** The Python source of a helper class. */
export function helperSource(name: string): string {
  const s = helpers.get(name);
  if (s === undefined) throw new Error(`PyTorch helper class '${name}' is used by a rule but not defined`);
  return s;
}

/** Every sub-morphism (outermost first) whose kind has no rule: all of them, so one refusal names each. */
function unexportableParts(m: Para): string[] {
  if (!rules.has(m.kind)) return [String(m)];
  return m.children.flatMap(unexportableParts);
}

/** The PyTorch module of a morphism (domain fixed); refuses, naming every part without a rule. */
export function torchModule(m: Para): TorchModule {
  const missing = unexportableParts(m);
  if (missing.length) throw notExportable([...new Set(missing)], torchKinds());
  const emit = (c: Para): TorchModule => rules.get(c.kind)!({ m: c, emit });
  return emit(m);
}
