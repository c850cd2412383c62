import { ParalensError, quote } from '../../errors.js';

/**
 * A malformed group or representation expression: names the column (1-based in the
 * message, 0-based in `position`) and what was expected there.
 */
export class ExpressionError extends ParalensError {
  readonly position: number;
  readonly expected: string;
  constructor(kind: 'group' | 'representation', src: string, position: number, expected: string) {
    super('E_EXPR', `${kind} ${quote(src)}: expected ${expected} at column ${position + 1} but found ${foundAt(src, position)}`);
    this.name = 'ExpressionError';
    this.position = position;
    this.expected = expected;
  }
}

/** The character at `position` for a message (a whole character, even outside the BMP), or 'the end'. */
function foundAt(src: string, position: number): string {
  return position < src.length ? quote(String.fromCodePoint(src.codePointAt(position)!)) : 'the end';
}

export { SolveTooLargeError, formatBytes } from '../../errors.js';
