import type { Loss } from '../../nn/loss.js';
import { makeCtx } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { checkRunnable, vertexActivities, vertexInput, vertexTheta } from './run.js';
import type { NetworkSite } from './site.js';
import { ToposError } from '../../category/errors.js';

/** An element of W(c): the parameter tensors of each vertex in D(c), by vertex index. */
export type Weights = ReadonlyMap<number, readonly Tensor[]>;

/**
 * The weight presheaf W of a network (Belfiore–Bennequin §1.4): W(c) = ∏_{j ∈ D(c)} Θ_j, the
 * weights of the layers downstream of c, where D(v) is the set of vertices reachable from v
 * along the flow (v excluded) and, at a fork over v with inputs a′ᵢ, D(A★) = D(A) = ∪ D(a′ᵢ).
 * D grows along the arrows of C (a → b ⇒ D(a) ⊆ D(b)), so restriction W(b) → W(a) forgets
 * the weights outside D(a): a presheaf for every site, forks and non-thin sites included.
 */
export interface WeightPresheaf {
  readonly site: NetworkSite;
  /** D(c) for each object c of C, ascending. */
  readonly downstream: readonly (readonly number[])[];
  /** The component of the full parameter list θ in W(c). */
  at(c: number, theta: readonly Tensor[]): Map<number, Tensor[]>;
  /** The restriction W(b) → W(a) along an arrow f: a → b of C. */
  restrict(f: number, w: Weights): Map<number, Tensor[]>;
}

/** W for a site built from a model (`networkSite(networkGraphOfModel(model))`). */
export function weightPresheaf(site: NetworkSite): WeightPresheaf {
  const { graph, category: C } = site;
  checkRunnable(graph, 'the weight presheaf');
  const n = graph.vertices.length;
  const consumers = graph.vertices.map(() => [] as number[]);
  graph.inputs.forEach((ins, v) => new Set(ins).forEach((u) => consumers[u]!.push(v)));
  const reach: Set<number>[] = new Array(n);
  for (let v = n - 1; v >= 0; v--) {
    const r = new Set<number>();
    for (const k of consumers[v]!) {
      if (k <= v) throw new ToposError('model graph vertices must be in topological order');
      r.add(k);
      reach[k]!.forEach((j) => r.add(j));
    }
    reach[v] = r;
  }
  const D: number[][] = C.objects.map((_, c) => (c < n ? [...reach[c]!] : []));
  for (const f of site.forks) {
    const u = new Set(f.inputs.map((name) => graph.vertices.indexOf(name)).flatMap((i) => [...reach[i]!]));
    D[f.star] = [...u];
    D[f.tank] = [...u];
  }
  D.forEach((d) => d.sort((a, b) => a - b));
  return {
    site,
    downstream: D,
    at(c, theta) {
      return new Map(D[c]!.map((j) => [j, vertexTheta(graph, theta, j)]));
    },
    restrict(f, w) {
      const a = C.arrows[f]!.dom;
      return new Map(
        D[a]!.map((j) => {
          const t = w.get(j);
          if (!t) throw new ToposError(`restriction along ${C.describe(f)} needs the weights of ${graph.vertices[j]}, which the element does not carry`);
          return [j, [...t]];
        }),
      );
    },
  };
}

/** The activities of every vertex at θ on a batch x (float64): held fixed by the backprop transformation. */
export function networkActivities(W: WeightPresheaf, theta: readonly Tensor[], x: Tensor): Tensor[] {
  return vertexActivities(W.site.graph, theta, x);
}

/**
 * Backprop as a natural transformation β: W ⇒ W (Belfiore–Bennequin §1.4). With the
 * activities held fixed, the component at c sends w ∈ W(c) to w − lr·∂L/∂w: the backward
 * pass over the vertices of D(c) in reverse order, each vertex's pullback taken at its fixed
 * input and its weights from w, starting from the loss's pullback at the fixed output. The
 * gradient of a vertex only involves vertices downstream of it, all in D(c), so β commutes
 * with every restriction (naturality); at the input object it is one ordinary gradient step.
 */
export function backpropComponent(
  W: WeightPresheaf,
  c: number,
  w: Weights,
  acts: readonly Tensor[],
  target: Tensor,
  loss: Loss,
  lr: number,
): Map<number, Tensor[]> {
  const graph = W.site.graph;
  const output = graph.vertices.length - 1;
  const ctx = makeCtx();
  const delta = new Map<number, Tensor>();
  const D = W.downstream[c]!;
  if (D.includes(output)) delta.set(output, loss.apply(acts[output]!, target.to('float64'), ctx).pullback());
  const out = new Map<number, Tensor[]>();
  for (let i = D.length - 1; i >= 0; i--) {
    const j = D[i]!;
    const theta = w.get(j);
    if (!theta) throw new ToposError(`backprop at ${W.site.category.objects[c]} needs the weights of ${graph.vertices[j]}`);
    const th = theta.map((t) => t.to('float64'));
    const grads = th.map((t) => Tensor.zeros(t.shape, 'float64'));
    const dy = delta.get(j);
    if (dy) {
      const lens = graph.ops![j]!.forward(
        th,
        vertexInput(graph, j, (u) => acts[u]!),
        ctx,
      );
      const dx = lens.pullback(dy, grads, true);
      sendBack(graph.inputs[j]!, dx, acts, delta);
    }
    out.set(
      j,
      th.map((t, k) =>
        Tensor.of(
          Array.from(t.data, (v, a) => v - lr * grads[k]!.data[a]!),
          t.shape,
          'float64',
        ),
      ),
    );
  }
  return new Map(D.map((j) => [j, out.get(j)!])); // in vertex order, like W.at
}

/** Splits dx along the vertex's inputs and adds each part into that input's δ. */
function sendBack(inputs: readonly number[], dx: Tensor, acts: readonly Tensor[], delta: Map<number, Tensor>): void {
  const B = dx.batch;
  const total = dx.size / B;
  let off = 0;
  for (const u of inputs) {
    const n = acts[u]!.size / B;
    let d = delta.get(u);
    if (!d) {
      d = Tensor.zeros(acts[u]!.shape, 'float64');
      delta.set(u, d);
    }
    for (let b = 0; b < B; b++) for (let k = 0; k < n; k++) d.data[b * n + k] = d.data[b * n + k]! + dx.data[b * total + off + k]!;
    off += n;
  }
}

/** An element of the crossed object 𝕏(c) = X(c) × W(c): the activity (a tuple of batches at A★ and A) and the weights. */
export interface CrossedElement {
  readonly a: readonly Tensor[];
  readonly w: Weights;
}

/**
 * The crossed object 𝕏 = X ×_W … (Belfiore–Bennequin §1.4): 𝕏(c) = X(c) × W(c), restricted
 * along each generating arrow with the weights it carries — a layer arrow v → u runs f_v with
 * θ_v from w, a tine projects the tuple, the tang is the identity, the handle runs f_v on the
 * tuple — and then forgets the weights outside D(dom). Its projection to W is natural by
 * construction. Composite arrows apply their edges from the codomain end.
 */
export function crossedRestrict(W: WeightPresheaf, f: number, x: CrossedElement): CrossedElement {
  const { site } = W;
  const { graph, category: C } = site;
  const path = C.arrows[f]!.path ?? [];
  const ctx = makeCtx();
  let a = x.a.map((t) => t.to('float64'));
  for (let k = path.length - 1; k >= 0; k--) {
    const g = site.generators[path[k]!]!;
    const v = g.vertex;
    if (g.kind === 'tine') a = [a[g.tine!]!];
    else if (g.kind === 'layer' || g.kind === 'handle') {
      const theta = x.w.get(v);
      if (!theta) throw new ToposError(`crossed restriction along ${C.describe(f)} needs the weights of ${graph.vertices[v]}`);
      const ins = [...new Set(graph.inputs[v]!)];
      const value = (u: number): Tensor => (g.kind === 'layer' ? a[0]! : a[ins.indexOf(u)]!);
      a = [
        graph.ops![v]!.forward(
          theta.map((t) => t.to('float64')),
          vertexInput(graph, v, value),
          ctx,
        ).y,
      ];
    }
  }
  return { a, w: W.restrict(f, x.w) };
}
