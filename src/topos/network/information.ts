import type { Para } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import { cocycleDefect, discretiseColumns, empiricalDistribution, shannonEntropy, mutualInformationK } from './cohomology.js';
import type { Distribution } from './cohomology.js';
import { networkGraphOfModel } from './graph.js';
import { vertexActivities } from './run.js';

/** I_k over the k-subsets of a layer's units: the smallest, largest and mean value. */
export interface IkSummary {
  readonly k: number;
  readonly subsets: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
}

/** Entropies and multivariate mutual informations of one layer's discretised activity (Belfiore–Bennequin §3.3). */
export interface LayerInformation {
  readonly vertex: string;
  readonly units: number;
  readonly distribution: Distribution;
  /** H(X_u) for each unit u, in bits. */
  readonly unitEntropies: readonly number[];
  /** H of all units jointly. */
  readonly jointEntropy: number;
  readonly ik: readonly IkSummary[];
  /** max |H(XY) − H(X) − X.H(Y)| over pairs of units and over the split first half / second half. */
  readonly maxCocycleDefect: number;
}

/** Entropies, I_k (k ≤ maxK) and the cocycle check for a batch of activity rows discretised into `bins`. */
export function informationOfRows(vertex: string, rows: readonly (readonly number[])[], bins: number, maxK = 4): LayerInformation {
  const P = empiricalDistribution(discretiseColumns(rows, bins));
  const m = P.variables;
  const units = Array.from({ length: m }, (_, u) => u);
  const ik: IkSummary[] = [];
  for (let k = 1; k <= Math.min(m, maxK); k++) {
    const vals = subsets(units, k).map((S) => mutualInformationK(P, S));
    ik.push({
      k,
      subsets: vals.length,
      min: vals.reduce((m, v) => Math.min(m, v), Infinity),
      max: vals.reduce((m, v) => Math.max(m, v), -Infinity),
      mean: vals.reduce((a, b) => a + b, 0) / vals.length,
    });
  }
  let defect = 0;
  for (const X of units) for (const Y of units) if (X !== Y) defect = Math.max(defect, Math.abs(cocycleDefect(P, [X], [Y])));
  if (m >= 2) defect = Math.max(defect, Math.abs(cocycleDefect(P, units.slice(0, m >> 1), units.slice(m >> 1))));
  return {
    vertex,
    units: m,
    distribution: P,
    unitEntropies: units.map((u) => shannonEntropy(P, [u])),
    jointEntropy: shannonEntropy(P, units),
    ik,
    maxCocycleDefect: defect,
  };
}

/**
 * The information of each non-linear layer of a model on the inputs x (Belfiore–Bennequin
 * §3.3, demo on the hidden layers of XOR): the activity of each vertex whose op has no
 * parameters (activations, pooling, add), discretised into `bins` per unit.
 */
export function layerInformation(
  model: Para,
  theta: readonly Tensor[],
  x: Tensor,
  opts: { bins?: number; maxK?: number; maxUnits?: number } = {},
): LayerInformation[] {
  const graph = networkGraphOfModel(model);
  const acts = vertexActivities(graph, theta, x);
  const out: LayerInformation[] = [];
  for (let v = 1; v < graph.vertices.length; v++) {
    if (graph.ops![v]!.params.length) continue;
    const a = acts[v]!;
    const n = a.size / a.batch;
    if (n > (opts.maxUnits ?? 16)) continue;
    const rows = Array.from({ length: a.batch }, (_, b) => Array.from(a.data.subarray(b * n, (b + 1) * n)));
    out.push(informationOfRows(graph.vertices[v]!, rows, opts.bins ?? 2, opts.maxK ?? 4));
  }
  return out;
}

function subsets(xs: readonly number[], k: number): number[][] {
  if (k === 0) return [[]];
  if (xs.length < k) return [];
  const [h, ...t] = xs;
  return [...subsets(t, k - 1).map((s) => [h!, ...s]), ...subsets(t, k)];
}
