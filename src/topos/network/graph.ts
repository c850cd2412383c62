import { quote } from '../../errors.js';
import { Defined } from '../../para/definition.js';
import type { Para } from '../../para/para.js';
import { add, id } from '../../para/structure.js';
import { ToposError } from '../../category/errors.js';
import { recurrentInfo } from '../../nn/recurrent/index.js';
import { cellGraphOf } from './cell-graph.js';

/**
 * A network as a directed acyclic graph Γ of layers (Belfiore–Bennequin §1.1): data flows
 * along each edge u → v. `inputs[v]` lists the vertices whose outputs v reads, in order
 * (concatenated when v has several). For graphs built from a model, `ops[v]` is the
 * primitive morphism computed at v (undefined at the input vertex) and `paramOffsets[v]`
 * the index of its first parameter tensor in the model's θ.
 */
export interface NetworkGraph {
  readonly vertices: readonly string[];
  readonly edges: readonly (readonly [number, number])[];
  readonly inputs: readonly (readonly number[])[];
  readonly ops?: readonly (Para | undefined)[];
  readonly paramOffsets?: readonly number[];
  /** Why the activity presheaf cannot be computed from `ops` (e.g. a parallel product that splits its input), if so. */
  readonly unsupported?: string;
}

/** Throws a ToposError naming a directed cycle, if the graph has one. */
export function checkAcyclic(vertices: readonly string[], edges: readonly (readonly [number, number])[]): void {
  const out = vertices.map(() => [] as number[]);
  for (const [u, v] of edges) out[u]!.push(v);
  const state = vertices.map(() => 0); // 0 new, 1 on stack, 2 done
  const stack: number[] = [];
  const visit = (u: number): void => {
    state[u] = 1;
    stack.push(u);
    for (const v of out[u]!) {
      if (state[v] === 1) {
        const cyc = [...stack.slice(stack.indexOf(v)), v].map((i) => vertices[i]);
        throw new ToposError(`the network graph has a cycle ${cyc.join(' > ')}; a feed-forward network must be acyclic`);
      }
      if (state[v] === 0) visit(v);
    }
    stack.pop();
    state[u] = 2;
  };
  vertices.forEach((_, u) => {
    if (state[u] === 0) visit(u);
  });
}

/** A graph from edges and the vertices in order of appearance; checks that it is acyclic. */
export function networkGraph(vertices: readonly string[], edges: readonly (readonly [number, number])[]): NetworkGraph {
  const uniq = [...new Map(edges.map((e) => [`${e[0]},${e[1]}`, e])).values()];
  for (const [u, v] of uniq) if (u === v) throw new ToposError(`the network graph has a cycle ${vertices[u]} > ${vertices[u]} (a self-loop)`);
  checkAcyclic(vertices, uniq);
  const inputs = vertices.map((_, v) => uniq.filter((e) => e[1] === v).map((e) => e[0]));
  return { vertices, edges: uniq, inputs };
}

/**
 * Parses an edge list "x1>h, x2>h, h>y" (chains "a>b>c" allowed): data flows from the left
 * name to the right one. Names are letters, digits and _ . ' -.
 */
export function parseEdges(text: string): NetworkGraph {
  const vertices: string[] = [];
  const id = (s: string): number => {
    const name = s.trim();
    if (!/^[\w.'-]+$/u.test(name)) throw new ToposError(`vertex name ${quote(name)} in the edge list must be letters, digits, _ . ' -`);
    let i = vertices.indexOf(name);
    if (i < 0) i = vertices.push(name) - 1;
    return i;
  };
  const edges: [number, number][] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length)) {
    const chain = part.split('>');
    if (chain.length < 2) throw new ToposError(`edge ${quote(part)} must be written 'u>v' (data flows from u to v)`);
    const ids = chain.map(id);
    for (let i = 0; i + 1 < ids.length; i++) edges.push([ids[i]!, ids[i + 1]!]);
  }
  if (!edges.length) throw new ToposError(`empty edge list ${quote(text)}: write edges like "x1>h, x2>h, h>y"`);
  return networkGraph(vertices, edges);
}

/**
 * The graph of a composed morphism, walking `kind` and `children`: `seq` chains, `par` puts
 * its factors side by side, `residual(f)` is a copy vertex (two outputs: f and the skip) and
 * an add vertex (two inputs: a fork); a copy vertex holds one value that its two outputs read, `id` adds no vertex, every other primitive is a vertex
 * named `i:spec` (i counts vertices from 1; the input is `x`). A named composite
 * (transformer(…)) is its expansion; attention reads three vertices — its query, key and value
 * projections of the same input — so it is a fork with three tines (q, k, v). A recurrent layer
 * (lstm, gru, rnn, mgu, their scans and folds) is one step of its cell (cell-graph.ts): the
 * previous state is a source, and the concatenation the gates read, the gates' products with
 * the states and the sums are forks, as Belfiore–Bennequin draw the cells (§4.1–4.2).
 */
export function networkGraphOfModel(model: Para): NetworkGraph {
  const vertices = ['x'];
  const ops: (Para | undefined)[] = [undefined];
  const paramOffsets = [0];
  const inputs: number[][] = [[]];
  let offset = 0;
  let unsupported: string | undefined;
  const vertex = (op: Para, ins: readonly number[], name = String(op)): number => {
    vertices.push(`${vertices.length}:${name}`);
    ops.push(op);
    inputs.push([...ins]);
    paramOffsets.push(offset);
    offset += op.params.length;
    return vertices.length - 1;
  };
  const build = (m: Para, ins: readonly number[]): number[] => {
    switch (m.kind) {
      case 'seq':
        return m.children.reduce<number[]>((cur, c) => build(c, cur), [...ins]);
      case 'par': {
        // each factor reads one of the incoming vertices when their widths match the factors' domains
        const width = (u: number): number | undefined => (u === 0 ? model.dom?.[0] : ops[u]!.cod?.[0]);
        const split = ins.length === m.children.length && m.children.every((c, i) => !c.dom || width(ins[i]!) === undefined || c.dom[0] === width(ins[i]!));
        if (!split) unsupported ??= `${m} splits one input among its factors`;
        return m.children.flatMap((c, i) => build(c, split ? [ins[i]!] : ins));
      }
      case 'residual': {
        const c = vertex(id(m.dom), ins, 'copy');
        const out = build(m.children[0]!, [c]);
        return [vertex(addOf(m), [...out, c], 'add')];
      }
      case 'id':
        return [...ins];
      case 'copy': {
        // the copy vertex holds one value, read by both of its outputs
        const v = vertex(id(m.dom), ins, String(m));
        return [v, v];
      }
      case 'attention': {
        // q, k and v read the same input; attention (with all the layer's parameters) reads all three
        unsupported ??= 'attention is drawn as its q, k, v projections and a fork, not as layers the activity presheaf can run';
        const qkv = ['q', 'k', 'v'].map((name) => vertex(id(m.dom), ins, `${name} = x·W_${name}ᵀ`));
        return [vertex(m, qkv)];
      }
      default: {
        if (m instanceof Defined) return build(m.body, ins);
        const rec = recurrentInfo(m);
        const steps = rec && rec.role !== 'cell' && rec.role !== 'bidirectional' ? cellGraphOf(rec) : undefined;
        if (steps) {
          unsupported ??= `${m} is drawn as one step of its cell (its gates, products and sums), not as layers the activity presheaf can run`;
          const at = new Map<string, number>();
          for (const src of steps.sources) at.set(src, vertex(id(), [], src));
          const last = steps.vertices.length - 1;
          steps.vertices.forEach((v, k) => {
            const reads = v.reads.flatMap((r) => (r === 'x' ? [...ins] : [at.get(r)!]));
            // the output vertex carries the layer (its parameters counted once)
            at.set(v.name, k === last ? vertex(m, reads, `${v.name} [${m}]`) : vertex(id(), reads, v.name));
          });
          return [at.get(steps.vertices[last]!.name)!];
        }
        if (m.children.length) unsupported ??= `${m.kind} is drawn as one vertex`;
        return [vertex(m, ins)];
      }
    }
  };
  const outs = build(model, [0]);
  if (outs.length > 1) unsupported ??= 'the model has several outputs';
  const edges: [number, number][] = [];
  inputs.forEach((ins, v) => ins.forEach((u) => edges.push([u, v])));
  const g = networkGraph(vertices, edges);
  return { ...g, inputs, ops, paramOffsets, unsupported };
}

/** The add A ⊗ A → A of a residual block. */
function addOf(m: Para): Para {
  const d = m.dom;
  return d ? add(d.length === 1 ? d[0] : [2 * d[0]!, ...d.slice(1)]) : add();
}
