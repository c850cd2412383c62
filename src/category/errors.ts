import { ParalensError } from '../errors.js';

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
