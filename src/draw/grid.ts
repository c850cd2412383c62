import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';

/** A rectangle of the input plane. */
export interface Box {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Values on an n×n grid over a box, row-major with y rows (what heatMap draws). */
export interface Grid extends Box {
  values: Float32Array | Float64Array;
  nx: number;
  ny: number;
}

/** The bounding box of 2-D points with a margin. */
export function boundsOf(x: Tensor, margin = 0.1): Box {
  let x0 = Infinity,
    x1 = -Infinity,
    y0 = Infinity,
    y1 = -Infinity;
  for (let i = 0; i < x.batch; i++) {
    const a = x.data[2 * i]!,
      b = x.data[2 * i + 1]!;
    x0 = Math.min(x0, a);
    x1 = Math.max(x1, a);
    y0 = Math.min(y0, b);
    y1 = Math.max(y1, b);
  }
  const mx = (x1 - x0) * margin || 1,
    my = (y1 - y0) * margin || 1;
  return { x0: x0 - mx, x1: x1 + mx, y0: y0 - my, y1: y1 + my };
}

/** The centres of an n×n grid over a box, as a batch [n², 2]. */
export function gridPoints(box: Box, n: number): Tensor {
  const pts = Tensor.zeros([n * n, 2]);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      pts.data[(j * n + i) * 2] = box.x0 + ((i + 0.5) / n) * (box.x1 - box.x0);
      pts.data[(j * n + i) * 2 + 1] = box.y0 + ((j + 0.5) / n) * (box.y1 - box.y0);
    }
  }
  return pts;
}

/** A 2-D model's first output over an n×n grid of the box (e.g. a classifier's χ). */
export function gridValues(model: Para, theta: readonly Tensor[], box: Box, n = 40, transform?: (y: number) => number): Grid {
  const y = model.run(theta, gridPoints(box, n));
  const per = y.size / y.batch;
  const values = new Float32Array(n * n);
  for (let i = 0; i < n * n; i++) values[i] = transform ? transform(y.data[i * per]!) : y.data[i * per]!;
  return { values, nx: n, ny: n, ...box };
}
