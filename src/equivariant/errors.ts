import { ParalensError } from '../errors.js';

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

/** A solve that would need more memory than allowed: refused before it starts, with the estimate. */
export class SolveTooLargeError extends ParalensError {
  readonly bytes: number;
  constructor(message: string, bytes: number) {
    super('E_TOO_LARGE', message);
    this.name = 'SolveTooLargeError';
    this.bytes = bytes;
  }
}

/** Human-readable byte count. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}
