import { UnknownNameError } from '../../errors.js';
import { booleanAlgebra, godel } from './heyting.js';
import type { HeytingAlgebra } from './heyting.js';
import { kleeneDienes } from './kleene-dienes.js';
import { lukasiewicz, productLogic } from './residuated.js';

/** The logics on truth values in [0,1] (and {0,1}) by CLI name. */
export const truthAlgebras: readonly HeytingAlgebra<number>[] = [godel, booleanAlgebra, lukasiewicz, productLogic, kleeneDienes];

export function truthAlgebraNames(): string[] {
  return truthAlgebras.map((a) => a.name);
}

/** A logic by name (`godel`, `boolean`, `lukasiewicz`, `product`, `kleene-dienes`). */
export function truthAlgebra(name: string): HeytingAlgebra<number> {
  const a = truthAlgebras.find((x) => x.name === name);
  if (!a) throw new UnknownNameError('logic', name, truthAlgebraNames());
  return a;
}
