import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { isBatch, normAxis, printShape } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { defineOp, ints, num, word } from './op.js';
import type { Attrs, OpCtx, OpDef, OpLens } from './op.js';
import { forEachRun, stridesOf } from './strided.js';

/**
 * Operators that pick, repeat or pad elements: Slice, Gather, Tile, Pad, Trilu. Each forward
 * reads x at offsets computed from the output index (one strided walk); each pullback adds dy
 * back at the same offsets (the adjoint of a selection is a scatter-add). Gather on the rows
 * of a matrix — an embedding — runs on the backend's gatherRows and scatterRows.
 */

/** For every output element, the offset in x it reads (or −1: padding). */
type Source = (visit: (o: number, src: number) => void) => void;

function selectLens(x: Tensor, shape: readonly number[], source: Source, ctx: OpCtx, fill = 0): OpLens {
  const y = ctx.alloc(shape, x.dtype, true);
  source((o, s) => (y.data[o] = s < 0 ? fill : x.data[s]!));
  return {
    ys: [y],
    pullback: ([dy], [need]) => {
      if (!dy || !need) return [undefined];
      const dx = ctx.alloc(x.shape, x.dtype);
      source((o, s) => {
        if (s >= 0) dx.data[s] = dx.data[s]! + dy.data[o]!;
      });
      return [dx];
    },
  };
}

/** Slice's ranges per axis: start, step and count, clamped as ONNX says (ends past the axis clamp to it). */
function sliceRanges(x: SymShape, a: Attrs, where: string): { start: number; step: number; count: Dim }[] {
  const starts = ints(a, 'starts'),
    ends = ints(a, 'ends');
  const axes = ints(a, 'axes').length ? ints(a, 'axes').map((ax) => normAxis(ax, x.length, where)) : starts.map((_, i) => i);
  const steps = ints(a, 'steps').length ? ints(a, 'steps') : starts.map(() => 1);
  if (ends.length !== starts.length || axes.length !== starts.length || steps.length !== starts.length)
    throw new ShapeError(`${where}: starts, ends, axes and steps differ in length`);
  const out = x.map((d) => ({ start: 0, step: 1, count: d }));
  starts.forEach((s0, i) => {
    const ax = axes[i]!,
      d = x[ax]!,
      step = steps[i]!;
    if (step === 0) throw new ShapeError(`${where}: a step is 0`);
    if (isBatch(d)) {
      // the batch axis is sliced only whole
      if (!(s0 === 0 && ends[i]! >= 2 ** 31 && step === 1)) throw new ShapeError(`${where}: slices the batch axis`);
      return;
    }
    const clamp = (v: number, lo: number, hi: number): number => Math.min(Math.max(v < 0 ? v + d : v, lo), hi);
    const start = step > 0 ? clamp(s0, 0, d) : clamp(s0, -1, d - 1);
    const end = step > 0 ? clamp(ends[i]!, 0, d) : clamp(ends[i]!, -1, d - 1);
    const count = Math.max(0, Math.ceil((end - start) / step));
    out[ax] = { start, step, count };
  });
  return out;
}

const slice = defineOp(
  {
    name: 'Slice',
    doc: 'y = x[starts:ends:steps] along the axes given',
    inputs: 1,
    attrs: { starts: { kind: 'ints' }, ends: { kind: 'ints' }, axes: { kind: 'ints', default: [] }, steps: { kind: 'ints', default: [] } },
  },
  {
    shapes: ([x], a, where) => [sliceRanges(x!, a, where).map((r) => r.count)],
    forward: ([x], ctx, a, where) => {
      const r = sliceRanges(x!.shape, a, where);
      const shape = r.map((q) => q.count as number);
      const st = stridesOf(x!.shape);
      const base = r.reduce((s, q, i) => s + q.start * st[i]!, 0);
      const steps = r.map((q, i) => q.step * st[i]!);
      const last = steps[steps.length - 1] ?? 0;
      return selectLens(
        x!,
        shape,
        (visit) =>
          forEachRun(shape, [steps], (o, [p], n) => {
            for (let j = 0; j < n; j++) visit(o + j, base + p! + j * last);
          }),
        ctx,
      );
    },
  },
);

/** Gather's output shape: data's axes before `axis`, the indices' shape, data's axes after. */
function gatherShape(data: SymShape, idx: SymShape, axis: number): Dim[] {
  return [...data.slice(0, axis), ...idx, ...data.slice(axis + 1)];
}

const gather = defineOp(
  {
    name: 'Gather',
    doc: 'y = the entries of data at the indices along the axis (an embedding lookup on axis 0)',
    inputs: 2,
    attrs: { axis: { kind: 'int', default: 0 } },
  },
  {
    constantInputs: [1],
    shapes: ([d, i], a, where) => [gatherShape(d!, i!, normAxis(num(a, 'axis'), d!.length, where))],
    forward: ([data, idx], ctx, a, where) => {
      const ax = normAxis(num(a, 'axis'), data!.rank, where);
      const n = data!.shape[ax]!;
      const ids = new Float64Array(idx!.size);
      for (let i = 0; i < ids.length; i++) {
        const v = idx!.data[i]!;
        const k = v < 0 ? v + n : v;
        if (!(Number.isInteger(k) && k >= 0 && k < n)) throw new ShapeError(`${where}: index ${v} is outside an axis of ${n}`);
        ids[i] = k;
      }
      const shape = gatherShape(data!.shape, idx!.shape, ax) as number[];
      const outer = sizeOf(data!.shape.slice(0, ax)),
        inner = sizeOf(data!.shape.slice(ax + 1));
      if (outer === 1) {
        // rows of a table: the backend's embedding kernels
        const be = backend();
        const y = ctx.alloc(shape, data!.dtype, true);
        if (inner > 0) be.gatherRows(ids, data!.data, inner, y.data);
        return {
          ys: [y],
          pullback: ([dy], [need]) => {
            if (!dy || !need) return [undefined, undefined];
            const dd = ctx.alloc(data!.shape, data!.dtype);
            if (inner > 0) be.scatterRows(dy.data, ids, inner, dd.data);
            return [dd, undefined];
          },
        };
      }
      const lens = selectLens(
        data!,
        shape,
        (visit) => {
          let o = 0;
          for (let p = 0; p < outer; p++) for (let i = 0; i < ids.length; i++) for (let q = 0, s = (p * n + ids[i]!) * inner; q < inner; q++) visit(o++, s + q);
        },
        ctx,
      );
      return { ys: lens.ys, pullback: (dys, need) => [...lens.pullback(dys, need), undefined] };
    },
  },
);

const tile = defineOp(
  { name: 'Tile', doc: 'y = x repeated along each axis as many times as given', inputs: 1, attrs: { repeats: { kind: 'ints' } } },
  {
    shapes: ([x], a, where) => {
      const r = ints(a, 'repeats');
      if (r.length !== x!.length) throw new ShapeError(`${where}: ${r.length} repeats for ${printShape(x!)}`);
      return [x!.map((d, i) => (r[i] === 1 ? d : isBatch(d) ? fail(where) : d * r[i]!))];
    },
    forward: ([x], ctx, a) => {
      const r = ints(a, 'repeats');
      const shape = x!.shape.map((d, i) => d * r[i]!);
      const st = stridesOf(x!.shape);
      return selectLens(
        x!,
        shape,
        (visit) =>
          walk(shape, (o, idx) =>
            visit(
              o,
              idx.reduce((s, i, d) => s + (i % x!.shape[d]!) * st[d]!, 0),
            ),
          ),
        ctx,
      );
    },
  },
);

const fail = (where: string): never => {
  throw new ShapeError(`${where}: repeats the batch axis`);
};

/** Calls f(o, index) for every element of a shape in row-major order (index reused: copy it to keep it). */
function walk(shape: Shape, f: (o: number, idx: readonly number[]) => void): void {
  const n = sizeOf(shape);
  const idx = new Array<number>(shape.length).fill(0);
  for (let o = 0; o < n; o++) {
    f(o, idx);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
    }
  }
}

/**
 * The source index of output coordinate i along an axis of size d with pads `before` and
 * `after`, or −1 (constant padding). Negative pads crop first (as onnxruntime does); the modes
 * then read the cropped axis: reflect mirrors without repeating the edge, edge repeats it, wrap
 * continues from the other end.
 */
function padSource(i: number, d: number, before: number, after: number, mode: string): number {
  const start = Math.max(0, -before),
    size = d - start - Math.max(0, -after);
  const j = i - Math.max(0, before);
  if (j >= 0 && j < size) return start + j;
  if (mode === 'edge') return start + Math.min(Math.max(j, 0), size - 1);
  if (mode === 'reflect') {
    if (size === 1) return start;
    const period = 2 * (size - 1);
    const m = ((j % period) + period) % period;
    return start + (m < size ? m : period - m);
  }
  if (mode === 'wrap') return start + (((j % size) + size) % size);
  return -1;
}

const pad = defineOp(
  {
    name: 'Pad',
    doc: 'y = x padded by pads = [begin…, end…] per axis (constant, reflect, edge or wrap); negative pads crop',
    inputs: 1,
    attrs: { pads: { kind: 'ints' }, mode: { kind: 'string', default: 'constant' }, value: { kind: 'float', default: 0 } },
  },
  {
    check: (a, where) => {
      if (!['constant', 'reflect', 'edge', 'wrap'].includes(word(a, 'mode'))) throw new ShapeError(`${where}: unknown mode`);
    },
    shapes: ([x], a, where) => {
      const p = ints(a, 'pads'),
        r = x!.length;
      if (p.length !== 2 * r) throw new ShapeError(`${where}: ${p.length} pads for ${printShape(x!)} (expected ${2 * r})`);
      return [
        x!.map((d, i) => {
          if (p[i] === 0 && p[i + r] === 0) return d;
          if (isBatch(d)) throw new ShapeError(`${where}: pads the batch axis`);
          const n = d + p[i]! + p[i + r]!;
          if (n < 0) throw new ShapeError(`${where}: crops axis ${i} below nothing`);
          return n;
        }),
      ];
    },
    forward: ([x], ctx, a) => {
      const p = ints(a, 'pads'),
        r = x!.rank,
        mode = word(a, 'mode');
      const shape = x!.shape.map((d, i) => d + p[i]! + p[i + r]!);
      const st = stridesOf(x!.shape);
      return selectLens(
        x!,
        shape,
        (visit) =>
          walk(shape, (o, idx) => {
            let s = 0;
            for (let d = 0; d < r; d++) {
              const j = padSource(idx[d]!, x!.shape[d]!, p[d]!, p[d + r]!, mode);
              if (j < 0) return visit(o, -1);
              s += j * st[d]!;
            }
            visit(o, s);
          }),
        ctx,
        num(a, 'value'),
      );
    },
  },
);

const trilu = defineOp(
  {
    name: 'Trilu',
    doc: 'y = the upper (upper = 1) or lower triangle of the last two axes from diagonal k, zeros elsewhere',
    inputs: 1,
    attrs: { upper: { kind: 'int', default: 1 }, k: { kind: 'int', default: 0 } },
  },
  {
    shapes: ([x], _a, where) => {
      if (x!.length < 2) throw new ShapeError(`${where}: needs a matrix, got ${printShape(x!)}`);
      return [x!];
    },
    forward: ([x], ctx, a) => {
      const upper = num(a, 'upper') !== 0,
        k = num(a, 'k');
      const N = x!.shape[x!.rank - 2]!,
        M = x!.shape[x!.rank - 1]!;
      const keep = (o: number): boolean => {
        const i = Math.floor(o / M) % N,
          j = o % M;
        return upper ? j - i >= k : j - i <= k;
      };
      return selectLens(
        x!,
        x!.shape,
        (visit) => {
          for (let o = 0; o < x!.size; o++) visit(o, keep(o) ? o : -1);
        },
        ctx,
      );
    },
  },
);

export const SELECT_OPS: readonly OpDef[] = [slice, gather, tile, pad, trilu];
