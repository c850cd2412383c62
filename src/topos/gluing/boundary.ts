import { DataError, RangeArgError } from '../../errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Characteristic } from './subobject.js';

/** A rectangle of the plane [x0, x1] × [y0, y1]. */
export interface Bounds {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/** Values of a function on a regular grid: `values[j * nx + i]` at (x0 + i·dx, y0 + j·dy). */
export interface SampledGrid extends Bounds {
  readonly nx: number;
  readonly ny: number;
  readonly values: Float64Array;
}

/** A polyline as plain [x, y] pairs; closed curves repeat their first point at the end. */
export type Polyline = [number, number][];

/** Samples χ on an nx × ny grid over `bounds` (one batched call). */
export function sampleGrid(chi: Characteristic, bounds: Bounds, nx: number, ny = nx): SampledGrid {
  if (!(Number.isInteger(nx) && Number.isInteger(ny) && nx >= 2 && ny >= 2)) throw new RangeArgError(`grid resolution must be integers ≥ 2, got ${nx} × ${ny}`);
  if (!(bounds.x1 > bounds.x0 && bounds.y1 > bounds.y0))
    throw new RangeArgError(`grid bounds must have x0 < x1 and y0 < y1, got [${bounds.x0}, ${bounds.x1}] × [${bounds.y0}, ${bounds.y1}]`);
  const pts = new Float64Array(nx * ny * 2);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      pts[2 * (j * nx + i)] = bounds.x0 + ((bounds.x1 - bounds.x0) * i) / (nx - 1);
      pts[2 * (j * nx + i) + 1] = bounds.y0 + ((bounds.y1 - bounds.y0) * j) / (ny - 1);
    }
  }
  const values = chi(new Tensor(Float32Array.from(pts), [nx * ny, 2]));
  return { ...bounds, nx, ny, values };
}

/**
 * The level set {f = level} of a grid function as polylines, by marching squares (Lorensen &
 * Cline's marching cubes in 2-D): each cell whose corners lie on both sides of the level gets
 * one or two segments between linearly interpolated edge crossings; ambiguous (saddle) cells
 * are resolved by the cell's mean value. Segments are joined through their shared grid edges,
 * so chaining is exact (no floating-point matching). Open curves end on the grid border.
 */
export function marchingSquares(grid: SampledGrid, level: number): Polyline[] {
  const { nx, ny, values } = grid;
  values.forEach((v, k) => {
    if (!Number.isFinite(v)) throw new DataError(`marching squares: grid value ${v} at (${k % nx}, ${Math.floor(k / nx)}) is not finite`);
  });
  const dx = (grid.x1 - grid.x0) / (nx - 1),
    dy = (grid.y1 - grid.y0) / (ny - 1);
  const at = (i: number, j: number): number => values[j * nx + i]!;
  const above = (i: number, j: number): boolean => at(i, j) >= level;
  const H = (i: number, j: number): number => j * (nx - 1) + i; // edge (i,j)–(i+1,j)
  const V = (i: number, j: number): number => (nx - 1) * ny + j * nx + i; // edge (i,j)–(i,j+1)
  const point = new Map<number, [number, number]>();
  const cross = (id: number, i: number, j: number, di: number, dj: number): number => {
    if (!point.has(id)) {
      const a = at(i, j),
        b = at(i + di, j + dj);
      const t = a === b ? 0.5 : (level - a) / (b - a);
      point.set(id, [grid.x0 + (i + t * di) * dx, grid.y0 + (j + t * dj) * dy]);
    }
    return id;
  };
  const links = new Map<number, number[]>();
  const link = (a: number, b: number): void => {
    (links.get(a) ?? links.set(a, []).get(a)!).push(b);
    (links.get(b) ?? links.set(b, []).get(b)!).push(a);
  };
  for (let j = 0; j < ny - 1; j++) {
    for (let i = 0; i < nx - 1; i++) {
      const c = [above(i, j), above(i + 1, j), above(i + 1, j + 1), above(i, j + 1)]; // 00, 10, 11, 01
      if (c.every((v) => v === c[0])) continue;
      const bottom = (): number => cross(H(i, j), i, j, 1, 0);
      const right = (): number => cross(V(i + 1, j), i + 1, j, 0, 1);
      const top = (): number => cross(H(i, j + 1), i, j + 1, 1, 0);
      const left = (): number => cross(V(i, j), i, j, 0, 1);
      // the two edges next to each corner, in the order 00, 10, 11, 01
      const corner: [() => number, () => number][] = [
        [bottom, left],
        [bottom, right],
        [right, top],
        [left, top],
      ];
      const count = c.filter(Boolean).length;
      if (count === 2 && c[0] === c[2]) {
        // saddle: cut off the two corners on the other side from the cell's mean
        const centre = (at(i, j) + at(i + 1, j) + at(i + 1, j + 1) + at(i, j + 1)) / 4 >= level;
        c.forEach((v, k) => v !== centre && link(corner[k]![0](), corner[k]![1]()));
      } else if (count === 1 || count === 3) {
        const k = c.findIndex((v) => v === (count === 1));
        link(corner[k]![0](), corner[k]![1]());
      } else {
        // two adjacent corners above: the segment separates them from the other two
        const edges = [bottom, right, top, left].filter((_, e) => c[e] !== c[(e + 1) % 4]);
        link(edges[0]!(), edges[1]!());
      }
    }
  }
  return chain(links, point);
}

/** Walks the segment graph (every node has degree 1 or 2) into polylines: open ones first, then cycles. */
function chain(links: Map<number, number[]>, point: Map<number, [number, number]>): Polyline[] {
  const seen = new Set<number>();
  const out: Polyline[] = [];
  const walk = (start: number): Polyline => {
    const line: Polyline = [];
    let prev = -1,
      cur = start;
    for (;;) {
      seen.add(cur);
      line.push(point.get(cur)!);
      const next = links.get(cur)!.find((n) => n !== prev && !seen.has(n));
      if (next === undefined) {
        if (links.get(cur)!.includes(start) && line.length > 2) line.push(point.get(start)!);
        return line;
      }
      prev = cur;
      cur = next;
    }
  };
  const ids = [...links.keys()].sort((a, b) => a - b);
  for (const id of ids) if (!seen.has(id) && links.get(id)!.length === 1) out.push(walk(id));
  for (const id of ids) if (!seen.has(id)) out.push(walk(id));
  return out;
}

/** The decision boundary χ⁻¹(level) of a classifier on the plane, with the grid it was traced on. */
export interface DecisionBoundary {
  readonly level: number;
  readonly grid: SampledGrid;
  readonly polylines: Polyline[];
}

/**
 * Seed 000: "the decision boundary at p = 0.5 is χ⁻¹(0.5)". Samples χ on a grid over `bounds`
 * and traces the level set by marching squares. Plain arrays, ready to be drawn.
 */
export function decisionBoundary(chi: Characteristic, bounds: Bounds, opts: { resolution?: number; level?: number } = {}): DecisionBoundary {
  const level = opts.level ?? 0.5;
  if (!(level > 0 && level < 1)) throw new RangeArgError(`decision boundary level ${level} must be strictly between 0 and 1`);
  const grid = sampleGrid(chi, bounds, opts.resolution ?? 81);
  return { level, grid, polylines: marchingSquares(grid, level) };
}

/** A coarse picture of the subobject {χ ≥ level} for a terminal: `#` inside, `.` outside, top row = largest y. */
export function asciiSubobject(grid: SampledGrid, level = 0.5): string[] {
  const rows: string[] = [];
  for (let j = grid.ny - 1; j >= 0; j--) {
    let r = '';
    for (let i = 0; i < grid.nx; i++) r += grid.values[j * grid.nx + i]! >= level ? '#' : '.';
    rows.push(r);
  }
  return rows;
}

/** A decision boundary as plain JSON-ready arrays (grid values row by row, polylines as [x, y] pairs) for a plotting module. */
export function boundaryPlot(b: DecisionBoundary): { level: number; bounds: Bounds; nx: number; ny: number; values: number[]; polylines: Polyline[] } {
  const { x0, x1, y0, y1, nx, ny } = b.grid;
  return { level: b.level, bounds: { x0, x1, y0, y1 }, nx, ny, values: Array.from(b.grid.values), polylines: b.polylines };
}
