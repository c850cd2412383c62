import { quote } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { presheafFromGenerators } from '../presheaf/presheaf.js';
import type { Presheaf } from '../presheaf/presheaf.js';
import type { NetworkSite } from './site.js';
import { ToposError } from '../../category/errors.js';

/**
 * The activity presheaf X^w of a network with discretised activations, with the activity
 * vector behind each element: values[c][x] is the vector (or, at A★ and A, the tuple of
 * input vectors concatenated) of element x of X(c).
 */
export interface ActivityPresheaf {
  readonly presheaf: Presheaf;
  readonly values: readonly (readonly (readonly number[])[])[];
}

/** Rounds every coordinate to the grid step·ℤ (the discretisation that makes X^w finite). */
export function discretiseActivity(v: readonly number[], step: number): number[] {
  return v.map((a) => {
    const r = Math.round(a / step) * step;
    return Number(r.toFixed(12)) + 0; // + 0 turns −0 into 0
  });
}

function label(v: readonly number[]): string {
  return `(${v.map((a) => Number(a.toPrecision(6))).join(',')})`;
}

/**
 * The activity presheaf X^w (Belfiore–Bennequin §1.2–1.4) on the site of a network:
 * X(s) is the given finite set of input vectors at each source s; a vertex v reading one
 * vertex u has X(v) = {round(f_v(a)) : a ∈ X(u)} and X(v → u) = round∘f_v; at a fork,
 * X(A★) = X(A) = ∏ X(a′ᵢ) (all tuples: the sheaf condition for the tine sieve), the tines
 * restrict by projection, the tang is the identity and the handle is round∘f_v. Restriction
 * thus runs forward along the flow. `layer(v, inputs)` computes f_v on the input vectors.
 */
export function activityPresheaf(
  site: NetworkSite,
  sources: ReadonlyMap<string, readonly (readonly number[])[]>,
  layer: (v: number, inputs: readonly (readonly number[])[]) => number[],
  step = 0.1,
): ActivityPresheaf {
  const { graph, category: C } = site;
  const values: number[][][] = C.objects.map(() => []);
  const index: Map<string, number>[] = C.objects.map(() => new Map());
  const intern = (c: number, v: number[]): number => {
    const k = v.join(',');
    let i = index[c]!.get(k);
    if (i === undefined) {
      i = values[c]!.push(v) - 1;
      index[c]!.set(k, i);
    }
    return i;
  };
  const forkAt = new Map(site.forks.map((f) => [f.vertex, f]));
  // per generating edge (in the order categoryFromGraph saw them, by name): x ∈ X(tgt) ↦ X(src)
  const edgeMap = new Map<string, number[]>();
  const order = topologicalOrder(graph.vertices.length, graph.inputs);
  for (const v of order) {
    const name = graph.vertices[v]!;
    const ins = [...new Set(graph.inputs[v]!)];
    if (!ins.length) {
      const xs = sources.get(name);
      if (!xs || !xs.length) throw new ToposError(`source vertex ${quote(name)} needs a finite set of input vectors`);
      for (const x of xs) intern(v, discretiseActivity(x, step));
    } else if (ins.length === 1) {
      const u = ins[0]!;
      const m = values[u]!.map((a) =>
        intern(
          v,
          discretiseActivity(
            layer(
              v,
              graph.inputs[v]!.map(() => a),
            ),
            step,
          ),
        ),
      );
      edgeMap.set(`${name}→${graph.vertices[u]}`, m);
    } else {
      const fork = forkAt.get(name)!;
      // all tuples of input elements, the first input varying slowest
      const tuples: number[][] = [[]];
      for (const u of ins) {
        const next: number[][] = [];
        for (const t of tuples) values[u]!.forEach((_, i) => next.push([...t, i]));
        tuples.splice(0, tuples.length, ...next);
      }
      const vec = (t: readonly number[]): number[] => t.flatMap((i, k) => values[ins[k]!]![i]!);
      tuples.forEach((t) => {
        intern(fork.star, vec(t));
        intern(fork.tank, vec(t));
      });
      ins.forEach((u, k) =>
        edgeMap.set(
          `${graph.vertices[u]}→A★(${name})`,
          tuples.map((t) => t[k]!),
        ),
      );
      edgeMap.set(
        `A★(${name})→A(${name})`,
        tuples.map((_, i) => i),
      );
      const byVertex = new Map(ins.map((u, k) => [u, k]));
      edgeMap.set(
        `${name}→A(${name})`,
        tuples.map((t) =>
          intern(
            v,
            discretiseActivity(
              layer(
                v,
                graph.inputs[v]!.map((u) => values[u]![t[byVertex.get(u)!]!]!),
              ),
              step,
            ),
          ),
        ),
      );
    }
  }
  const maps = site.generators.map(({ name: n }) => {
    const m = edgeMap.get(n);
    if (!m) throw new ToposError(`no restriction map for edge ${n}`);
    return m;
  });
  const presheaf = presheafFromGenerators(
    C,
    values.map((vs) => vs.map(label)),
    maps,
  );
  return { presheaf, values };
}

function topologicalOrder(n: number, inputs: readonly (readonly number[])[]): number[] {
  const order: number[] = [];
  const seen = new Array<boolean>(n).fill(false);
  const visit = (v: number): void => {
    if (seen[v]) return;
    seen[v] = true;
    for (const u of inputs[v]!) visit(u);
    order.push(v);
  };
  for (let v = 0; v < n; v++) visit(v);
  return order;
}

/**
 * The activity presheaf of a model (its site from `networkGraphOfModel`) at parameters θ on
 * a finite set of inputs (the rows of x), each layer's output rounded to `step`.
 */
export function modelActivityPresheaf(site: NetworkSite, theta: readonly Tensor[], x: Tensor, step = 0.1): ActivityPresheaf {
  const { graph } = site;
  if (!graph.ops || !graph.paramOffsets) throw new ToposError('modelActivityPresheaf needs a site built from a model (networkGraphOfModel)');
  if (graph.unsupported) throw new ToposError(`cannot compute the activity presheaf: ${graph.unsupported}`);
  const ops = graph.ops;
  const offsets = graph.paramOffsets;
  const n = x.size / x.batch;
  const rows = Array.from({ length: x.batch }, (_, b) => Array.from(x.data.subarray(b * n, (b + 1) * n)));
  const layer = (v: number, inputs: readonly (readonly number[])[]): number[] => {
    const op = ops[v] as Para;
    const flat = inputs.flat();
    const t = Tensor.of(flat, [1, flat.length], 'float64');
    const th = theta.slice(offsets[v], offsets[v]! + op.params.length).map((p) => p.to('float64'));
    return Array.from(op.run(th, t).data);
  };
  return activityPresheaf(site, new Map([[graph.vertices[0]!, rows]]), layer, step);
}
