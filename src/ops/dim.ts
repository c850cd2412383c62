import { ShapeError } from '../errors.js';

/**
 * The sizes of the axes of a value in an operator graph, with the batch kept symbolic. A graph
 * runs on [B, …dom] for every batch size B, so a size is a number or a multiple k·B of the batch
 * (`B`, `B*4` as spec strings print them: a Reshape of [B, T, d] to [B·T, d] has a first axis of
 * B*T). The batch never appears squared; a size that would is refused.
 */
export interface BatchDim {
  /** The factor k of k·B (an integer or a simple fraction: B/2 is 0.5). */
  readonly k: number;
}
export type Dim = number | BatchDim;
export type SymShape = readonly Dim[];

/** The batch B itself. */
export const BATCH: BatchDim = Object.freeze({ k: 1 });

export const isBatch = (d: Dim): d is BatchDim => typeof d !== 'number';

export function dimEquals(a: Dim, b: Dim): boolean {
  return isBatch(a) ? isBatch(b) && a.k === b.k : !isBatch(b) && a === b;
}

/** a·b, refusing B·B. */
export function dimTimes(a: Dim, b: Dim): Dim {
  if (isBatch(a) && isBatch(b)) throw new ShapeError('a size would be the batch squared (B·B); an operator graph keeps the batch on one axis');
  if (isBatch(a)) return b === 0 ? 0 : { k: a.k * (b as number) };
  if (isBatch(b)) return a === 0 ? 0 : { k: b.k * a };
  return a * b;
}

/** a / b, exactly: a number when B cancels, k·B when only a has it; refused when b has B and a does not. */
export function dimOver(a: Dim, b: Dim): Dim {
  if (isBatch(b)) {
    if (!isBatch(a)) throw new ShapeError(`cannot divide the size ${printDim(a)} by ${printDim(b)}`);
    return a.k / b.k;
  }
  if (b === 0) throw new ShapeError(`cannot divide the size ${printDim(a)} by 0`);
  return isBatch(a) ? { k: a.k / b } : a / b;
}

/** The number of elements of a shape (a multiple of B when it has a batch axis). */
export function symSize(s: SymShape): Dim {
  let n: Dim = 1;
  for (const d of s) n = dimTimes(n, d);
  return n;
}

/** The size with the batch set to `batch`. */
export function resolveDim(d: Dim, batch: number): number {
  return isBatch(d) ? d.k * batch : d;
}

export function resolveShape(s: SymShape, batch: number): number[] {
  return s.map((d) => resolveDim(d, batch));
}

/** `B`, `B*4`, `B/2`, or the number. */
export function printDim(d: Dim): string {
  if (!isBatch(d)) return String(d);
  if (d.k === 1) return 'B';
  return Number.isInteger(d.k) ? `B*${d.k}` : `B/${1 / d.k}`;
}

export function printShape(s: SymShape): string {
  return `[${s.map(printDim).join(',')}]`;
}

/** Reads `B`, `B*4`, `B/2` or an integer (a spec string's size). */
export function parseDim(text: string): Dim | undefined {
  const t = text.trim();
  if (/^-?\d+$/.test(t)) return Number(t);
  const m = /^B(?:([*/])(\d+))?$/.exec(t);
  if (!m) return undefined;
  if (!m[1]) return BATCH;
  const n = Number(m[2]);
  return n > 0 ? { k: m[1] === '*' ? n : 1 / n } : undefined;
}

/** The concrete shape of a symbolic one that has no batch in it (e.g. a parameter's), or a ShapeError. */
export function concreteShape(s: SymShape, what: string): number[] {
  return s.map((d) => {
    if (isBatch(d)) throw new ShapeError(`${what}: the size ${printDim(d)} depends on the batch; a fixed size is needed here`);
    return d;
  });
}

/** NumPy broadcasting of two shapes (ONNX's multidirectional broadcasting), naming `where` on a mismatch. */
export function broadcastShapes(a: SymShape, b: SymShape, where: string): Dim[] {
  const n = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1,
      y = b[b.length - n + i] ?? 1;
    if (dimEquals(x, y) || y === 1) out.push(x);
    else if (x === 1) out.push(y);
    else throw new ShapeError(`${where}: cannot broadcast ${printShape(a)} with ${printShape(b)}`);
  }
  return out;
}

/** An axis in [−rank, rank) as one in [0, rank), naming `where` when it is outside. */
export function normAxis(axis: number, rank: number, where: string): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!(Number.isInteger(a) && a >= 0 && a < rank)) throw new ShapeError(`${where}: axis ${axis} is outside a value of rank ${rank}`);
  return a;
}
