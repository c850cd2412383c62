import { ParalensError } from '../errors.js';

/**
 * Bad input to the finite-topos machinery (Topos II): a composition that is not associative,
 * a presheaf whose restrictions do not compose, a "topology" that breaks an axiom, a relation
 * that is not antisymmetric, a network graph with a cycle. The message names the failing
 * object, arrow or axiom. A usage error: the CLI exits with 2.
 */
export class ToposError extends ParalensError {
  constructor(message: string) {
    super('E_TOPOS', message);
    this.name = 'ToposError';
  }
}
