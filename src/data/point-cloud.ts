import { DataError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import type { Dataset } from './dataset.js';
import type { NdArray } from './npy.js';

/**
 * Whether arrays x [N, …] are samples a model takes exactly as they are: x of rank 3 holding
 * numbers (not 8-bit pixels) with targets that are not class labels, each sample shaped like the
 * model's domain — a point cloud [N, n, c] for a model on [n, c] (positions and features of n
 * points). Images [N, C, H, W] and labelled sets stay with the arrays' path. Such data are
 * neither flattened nor standardised: a mean and a scale per coordinate would move and stretch
 * the positions differently along each axis and break the symmetry the model is built for.
 */
export function isPointCloud(x: NdArray, dom: Shape | undefined, name = 'x', y?: NdArray): boolean {
  if (!dom || x.kind === 'text' || x.kind === 'uint8' || x.kind === 'bool' || x.shape.length !== 3) return false;
  // class labels (integers, text, booleans) make a classification set, whatever x's shape
  if (y && (y.kind === 'text' || y.kind === 'bool' || y.kind === 'int' || y.kind === 'uint8')) return false;
  const sample = x.shape.slice(1);
  if (sample.length !== dom.length) return false;
  if (sample.every((s, i) => s === dom[i])) return true;
  throw new DataError(
    `${name}: x holds samples [${sample.join(',')}] (shape [${x.shape.join(',')}]) but the model takes [${dom.join(',')}] per sample${dom.length === 2 ? ` (${dom[0]} points, each 3 coordinates and ${dom[1]! - 3} features)` : ''}`,
  );
}

/**
 * Point-cloud arrays as a data set: x [N, n, c] and the targets y as they are ([N, …] of any
 * rank: positions [N, n, 3], a vector per cloud, a number per cloud), regression targets in
 * their own units. Without y the set is its own target (for predict).
 */
export function pointCloudDataset(x: NdArray, y: NdArray | undefined, name: string): Dataset {
  const N = x.shape[0]!;
  const xs = Tensor.zeros([N, ...x.shape.slice(1)]);
  xs.data.set(x.data);
  if (!y) return { name, x: xs, y: xs };
  if (y.kind === 'text') throw new DataError(`${name}: y holds strings; a point-cloud model regresses numbers ([N, …] of any rank)`);
  if (y.shape[0] !== N) throw new DataError(`${name}: x has ${N} point clouds but y has ${y.shape[0] ?? 0} rows`);
  const ys = Tensor.zeros([N, ...(y.shape.length === 1 ? [1] : y.shape.slice(1))]);
  ys.data.set(y.data);
  return { name, x: xs, y: ys };
}
