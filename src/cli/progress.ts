import type { TrainEvent } from '../train/train.js';
import type { CliIO } from './command.js';

/** Whether a command must keep stderr free of progress and logs: --json (stdout is one object, stderr may be read by a machine too) or --quiet. */
export function isSilent(flags: { readonly json?: boolean; readonly quiet?: boolean }): boolean {
  return Boolean(flags.json) || Boolean(flags.quiet);
}

/** "4s", "2m05s", "1h03m". */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * A progress bar on stderr, drawn only when stderr is a terminal and the command is not
 * silent (--json, --quiet); otherwise nothing. `update(done, total, note, count)` redraws at
 * most every 80 ms: the bar, `count` (default done/total), the note, and the time left
 * estimated from the rate so far; `done()` clears the line.
 */
export class Progress {
  private last = 0;
  private readonly start = Date.now();
  readonly active: boolean;
  constructor(
    private readonly io: CliIO,
    private readonly label: string,
    silent: boolean,
  ) {
    this.active = io.errIsTTY && !silent;
  }
  update(done: number, total: number, note = '', count = `${done}/${total}`): void {
    if (!this.active) return;
    const now = Date.now();
    if (now - this.last < 80 && done < total) return;
    this.last = now;
    const w = 28;
    const f = Math.max(0, Math.min(1, total ? done / total : 0));
    const bar = '█'.repeat(Math.round(f * w)).padEnd(w, '░');
    const elapsed = (now - this.start) / 1000;
    const eta = done > 0 && done < total && elapsed > 0.5 ? ` · ETA ${duration((elapsed * (total - done)) / done)}` : '';
    this.io.err(`\r${this.label} ${bar} ${count} ${note}${eta}`.slice(0, 140).padEnd(110));
  }
  /** Print a line above the bar (a log line that stays). */
  log(line: string): void {
    this.clear();
    this.io.err(line + '\n');
  }
  done(): void {
    this.clear();
  }
  private clear(): void {
    if (this.active) this.io.err('\r'.padEnd(111) + '\r');
  }
}

/** What a training run reports its progress to: train()'s events (rows), or each step's bits per character (text). */
export interface TrainingProgress {
  onEvent(e: TrainEvent): void;
  onStep(step: number, steps: number, bits: number): void;
  done(): void;
}

/**
 * The progress of a training run, from train()'s events: a line with the epoch, samples per
 * second, the time left and the last losses, redrawn after optimiser steps on a terminal;
 * and, unless silent, one log line per evaluated epoch when there is a validation set. A run
 * on text reports its steps instead: the step and its bits per character.
 */
export function trainingProgress(io: CliIO, silent: boolean, label = 'train'): TrainingProgress {
  const bar = new Progress(io, label, silent);
  let rows = 0,
    startEpoch = 0,
    t0 = 0,
    lastLoss = '',
    lastVal = '';
  const rate = (done: number): string => `${Math.round(done / Math.max(1e-9, (performance.now() - t0) / 1000)).toLocaleString('en-US')} samples/s`;
  return {
    onEvent(e) {
      if (e.type === 'start') {
        rows = e.rows;
        startEpoch = e.startEpoch;
        t0 = performance.now();
      } else if (e.type === 'batch') {
        if (!bar.active) return;
        const done = (e.epoch - 1 - startEpoch) * rows + e.rows;
        bar.update(done, (e.epochs - startEpoch) * rows, `epochs · ${rate(done)}${lastLoss}`, `${e.epoch}/${e.epochs}`);
      } else if (e.type === 'epoch') {
        if (e.validationLoss !== undefined) lastVal = ` · val ${fmt(e.validationLoss)}`;
        lastLoss = ` · loss ${fmt(e.loss)}${lastVal}`;
        if (e.validationLoss !== undefined && !silent) {
          const acc = (a: number | undefined, what: string): string => (a === undefined ? '' : `  ${what} ${fmt(a)}`);
          bar.log(
            `epoch ${e.epoch}/${e.epochs}  loss ${fmt(e.loss)}${acc(e.accuracy, 'accuracy')}  val_loss ${fmt(e.validationLoss)}${acc(e.validationAccuracy, 'val_accuracy')}  (${fmt(e.epochSeconds, 3)} s)`,
          );
        }
        const done = (e.epoch - startEpoch) * rows;
        bar.update(done, (e.epochs - startEpoch) * rows, `epochs · ${rate(done)}${lastLoss}`, `${e.epoch}/${e.epochs}`);
      }
    },
    onStep: (step, steps, bits) => bar.update(step, steps, `bits/char ${fmt(bits)}`),
    done: () => bar.done(),
  };
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
  const line = (r: string[]): string =>
    r
      .map((c, j) => c.padEnd(widths[j]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n');
}
