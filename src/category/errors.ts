import { ParalensError } from '../errors.js';

/**
 * Bad input to finite categories, presheaves and topoi: a composition that is not associative,
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

/**
 * Bad input to ends and coends: a functor that is not functorial (names the arrow or the
 * object where a law fails), a matrix of the wrong size for F(f, b), a group too large or not
 * finite. A usage error: the CLI exits with 2.
 */
export class FunctorError extends ParalensError {
  constructor(message: string) {
    super('E_FUNCTOR', message);
    this.name = 'FunctorError';
  }
}
