import { ParalensError } from '../../errors.js';

/**
 * A malformed group or representation expression: names the column (1-based in the
 * message, 0-based in `position`) and what was expected there.
 */
export class ExpressionError extends ParalensError {
  readonly position: number;
  readonly expected: string;
  constructor(kind: 'group' | 'representation', src: string, position: number, expected: string, found: string) {
    super('E_EXPR', `${kind} '${src}': expected ${expected} at column ${position + 1} but found ${found}`);
    this.name = 'ExpressionError';
    this.position = position;
    this.expected = expected;
  }
}

export { SolveTooLargeError, formatBytes } from '../../errors.js';
