/**
 * The one way paralens registers "a rule per layer kind": a rule table per concern (the
 * catalogue of spec names, ONNX export, PyTorch export, drawing), built from an explicit list
 * of the layer families' rule records. Nothing registers itself by being imported; a family's
 * rules reach a table because the table's one list names them, and a kind that two families
 * both claim is refused when the table is built.
 *
 *   export const TORCH_RULES = ruleTable('PyTorch export', [structureRules, nnRules, …]);
 *
 * Which layers lack a rule for a concern, and why, is written in one place
 * (src/catalogue/exemptions.ts) and checked by test/catalogue/coverage.test.ts.
 */

/** One family's rules: layer kind → rule, as a record or as [kind, rule] pairs. */
export type RuleFamily<R> = Readonly<Record<string, R>> | readonly (readonly [kind: string, rule: R])[];

/** The rules of one concern, keyed by layer kind (the name a spec string gives the layer). */
export interface RuleTable<R> {
  /** What the rules are for, e.g. 'ONNX export' (named in refusals and in the coverage table). */
  readonly concern: string;
  get(kind: string): R | undefined;
  has(kind: string): boolean;
  /** Every kind with a rule, sorted. */
  kinds(): string[];
  /**
   * Adds (or replaces) the rule of a layer defined outside paralens — an explicit call made
   * before it is needed, like `defineLayer` for the catalogue.
   */
  define(kind: string, rule: R): void;
}

function entriesOf<R>(family: RuleFamily<R>): (readonly [string, R])[] {
  return Array.isArray(family) ? [...(family as readonly (readonly [string, R])[])] : Object.entries(family as Readonly<Record<string, R>>);
}

/** The table of one concern from its families' rules; a kind listed twice is a mistake and throws. */
export function ruleTable<R>(concern: string, families: readonly RuleFamily<R>[]): RuleTable<R> {
  const rules = new Map<string, R>();
  for (const family of families) {
    for (const [kind, rule] of entriesOf(family)) {
      if (rules.has(kind)) throw new Error(`${concern}: two rules for the layer kind '${kind}'; each kind has one rule per concern`);
      rules.set(kind, rule);
    }
  }
  return {
    concern,
    get: (kind) => rules.get(kind),
    has: (kind) => rules.has(kind),
    kinds: () => [...rules.keys()].sort(),
    define: (kind, rule) => void rules.set(kind, rule),
  };
}
