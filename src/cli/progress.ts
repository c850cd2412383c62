import type { CliIO } from './command.js';

/**
 * A progress bar on stderr, drawn only when stderr is a terminal and --json is off;
 * otherwise silent. `update(done, total, note)`; `done()` clears the line.
 */
export class Progress {
  private last = 0;
  private readonly active: boolean;
  constructor(private readonly io: CliIO, private readonly label: string, json: boolean) {
    this.active = io.errIsTTY && !json;
  }
  update(done: number, total: number, note = ''): void {
    if (!this.active) return;
    const now = Date.now();
    if (now - this.last < 80 && done < total) return;
    this.last = now;
    const w = 28;
    const f = Math.max(0, Math.min(1, total ? done / total : 0));
    const bar = '█'.repeat(Math.round(f * w)).padEnd(w, '░');
    this.io.err(`\r${this.label} ${bar} ${done}/${total} ${note}`.slice(0, 120).padEnd(100));
  }
  done(): void {
    if (this.active) this.io.err('\r'.padEnd(101) + '\r');
  }
}

/** A number printed with `digits` significant digits, for tables. */
export function fmt(x: number | undefined, digits = 4): string {
  if (x === undefined || Number.isNaN(x)) return '—';
  if (x !== 0 && (Math.abs(x) < 1e-3 || Math.abs(x) >= 1e6)) return x.toExponential(digits - 1);
  return Number(x.toPrecision(digits)).toString();
}

/** A plain-text table with a header row. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  // a loop, not Math.max(...rows): one argument per row overflows the stack on a large table
  const widths = header.map((_, j) => cells.reduce((w, r) => Math.max(w, (r[j] ?? '').length), 0));
  const line = (r: string[]): string => r.map((c, j) => c.padEnd(widths[j]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}
