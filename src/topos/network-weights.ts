import type { Loss } from '../nn/loss.js';
import { makeCtx } from '../para/para.js';
import type { Lens, Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import type { NetworkSite } from './site.js';
import { ToposError } from './topos-error.js';

/**
 * The weight presheaf W of a chain network x = 0 → 1 → … → n (Belfiore–Bennequin §1.4):
 * W(k) = ∏_{j > k} Θ_j, the weights of the layers downstream of k, and for an arrow
 * j → k of C (j ≥ k) the restriction W(k) → W(j) forgets the weights of layers k+1 … j.
 * Elements are lists of tensors, one per parameter tensor of layers k+1 … n, in order.
 */
export interface WeightPresheaf {
  readonly site: NetworkSite;
  /** The vertices (layers) in flow order; layer j ≥ 1 computes vertex j from vertex j − 1. */
  readonly layers: readonly Para[];
  /** offsets[j] is the index in θ of layer j's first parameter tensor (offsets[n+1] = |θ|). */
  readonly offsets: readonly number[];
  /** W(k) of the full parameter list θ: the tensors of layers k+1 … n. */
  at(k: number, theta: readonly Tensor[]): Tensor[];
  /** The restriction W(k) → W(j) for j ≥ k. */
  restrict(k: number, j: number, w: readonly Tensor[]): Tensor[];
}

/** W for a site built from a chain model (no forks); a ToposError otherwise. */
export function weightPresheaf(site: NetworkSite): WeightPresheaf {
  const g = site.graph;
  if (!g.ops || !g.paramOffsets) throw new ToposError('the weight presheaf needs a site built from a model (networkGraphOfModel)');
  if (site.forks.length || g.inputs.some((ins, v) => v > 0 && (ins.length !== 1 || ins[0] !== v - 1))) {
    throw new ToposError('the weight presheaf and backprop are implemented for chains of layers (no forks)');
  }
  const layers = g.ops.map((op, v) => (v === 0 ? undefined : op)) as Para[];
  const n = g.vertices.length - 1;
  const offsets = [...g.paramOffsets, g.paramOffsets[n]! + layers[n]!.params.length];
  const check = (k: number): void => {
    if (!(Number.isInteger(k) && k >= 0 && k <= n)) throw new ToposError(`layer index ${k} is not in 0 … ${n}`);
  };
  return {
    site,
    layers,
    offsets,
    at(k, theta) {
      check(k);
      return theta.slice(offsets[k + 1]);
    },
    restrict(k, j, w) {
      check(k);
      check(j);
      if (j < k) throw new ToposError(`no arrow ${j} → ${k} in C: W restricts downstream only (j ≥ k)`);
      return w.slice(offsets[j + 1]! - offsets[k + 1]!);
    },
  };
}

/**
 * The activities of a chain network at θ on a batch x (float64): acts[0] = x and
 * acts[j] = layer_j(acts[j−1]); these are held fixed by the backprop transformation.
 */
export function chainActivities(W: WeightPresheaf, theta: readonly Tensor[], x: Tensor): Tensor[] {
  const ctx = makeCtx();
  const acts = [x.to('float64')];
  for (let j = 1; j < W.layers.length; j++) acts.push(W.layers[j]!.forward(layerTheta(W, theta, j), acts[j - 1]!, ctx).y);
  return acts;
}

function layerTheta(W: WeightPresheaf, theta: readonly Tensor[], j: number): Tensor[] {
  return theta.slice(W.offsets[j], W.offsets[j + 1]).map((t) => t.to('float64'));
}

/**
 * Backprop as a natural transformation β: W ⇒ W (Belfiore–Bennequin §1.4): with the
 * activities held fixed, the component at k sends w = (θ_{k+1}, …, θ_n) to
 * w − lr·∂L/∂w, computed by the pullbacks of layers n … k+1 (each at its fixed input and its
 * weights from w) starting from the loss's pullback at the fixed output. The gradient of
 * layer j only uses layers downstream of j, so β commutes with restriction: naturality.
 * At k = 0 it is one ordinary gradient step of the whole network.
 */
export function backpropComponent(W: WeightPresheaf, k: number, w: readonly Tensor[], acts: readonly Tensor[], target: Tensor, loss: Loss, lr: number): Tensor[] {
  const n = W.layers.length - 1;
  const full: Tensor[] = new Array<Tensor>(W.offsets[k + 1]!).fill(Tensor.zeros([0], 'float64')).concat(w.map((t) => t.to('float64')));
  const ctx = makeCtx();
  let d = loss.apply(acts[n]!, target.to('float64'), ctx).pullback();
  const grads: Tensor[] = full.map((t) => Tensor.zeros(t.shape, 'float64'));
  for (let j = n; j > k; j--) {
    const lens: Lens = W.layers[j]!.forward(full.slice(W.offsets[j], W.offsets[j + 1]), acts[j - 1]!, ctx);
    d = lens.pullback(d, grads.slice(W.offsets[j], W.offsets[j + 1]), j > k + 1);
  }
  return full.slice(W.offsets[k + 1]).map((t, i) => {
    const g = grads[W.offsets[k + 1]! + i]!;
    const out = t.clone();
    for (let a = 0; a < out.size; a++) out.data[a] = t.data[a]! - lr * g.data[a]!;
    return out;
  });
}

/**
 * The crossed object 𝕏 = X × W over the chain (Belfiore–Bennequin §1.4): 𝕏(k) = X(k) × W(k)
 * and the restriction along j → k runs layers k+1 … j with the weights carried in w and
 * forgets them: (a, w) ↦ (f_j∘…∘f_{k+1}(a; w), w|_j). Its projection to W is natural.
 */
export function crossedRestrict(W: WeightPresheaf, k: number, j: number, a: Tensor, w: readonly Tensor[]): { a: Tensor; w: Tensor[] } {
  const ctx = makeCtx();
  const full: Tensor[] = new Array<Tensor>(W.offsets[k + 1]!).fill(Tensor.zeros([0], 'float64')).concat(w.map((t) => t.to('float64')));
  let y = a.to('float64');
  for (let l = k + 1; l <= j; l++) y = W.layers[l]!.forward(full.slice(W.offsets[l], W.offsets[l + 1]), y, ctx).y;
  return { a: y, w: W.restrict(k, j, w) };
}
