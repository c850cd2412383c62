import { quote, RangeArgError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { symmetric } from '../../symmetry/group/group.js';
import { frobenius } from '../../linalg/matrix.js';
import { orthonormalizeRows } from '../../linalg/nullspace.js';
import { V } from '../../symmetry/group/rep.js';
import { cachedBasis } from '../../symmetry/solve/resolve.js';
import { mixersOf } from './deepsets.js';
import { pointMixing } from './point-mixing.js';

/** The largest graph message passing is built for. */
const MAX_VERTICES = 4096;

/** An undirected graph on n vertices. */
export interface Graph {
  readonly n: number;
  readonly edges: readonly (readonly [number, number])[];
}

/** Parses `cycle(6)`, `path(5)`, `complete(4)`, `star(5)` or an edge list `(0-1,1-2,2-0)`. */
export function parseGraph(src: string): Graph {
  const s = src.trim();
  const named = /^(cycle|path|complete|star)\((\d+)\)$/.exec(s);
  if (named) {
    const n = Number(named[2]);
    if (n < 2) throw new RangeArgError(`graph ${quote(src)}: needs at least 2 vertices`);
    if (n > MAX_VERTICES || (named[1] === 'complete' && n > 1024)) {
      throw new RangeArgError(`graph ${quote(src)}: at most ${named[1] === 'complete' ? 1024 : MAX_VERTICES} vertices`);
    }
    const e: [number, number][] = [];
    if (named[1] === 'cycle') for (let i = 0; i < n; i++) e.push([i, (i + 1) % n]);
    if (named[1] === 'path') for (let i = 0; i + 1 < n; i++) e.push([i, i + 1]);
    if (named[1] === 'complete') for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) e.push([i, j]);
    if (named[1] === 'star') for (let i = 1; i < n; i++) e.push([0, i]);
    return { n, edges: e };
  }
  const list = /^\((.*)\)$/.exec(s);
  if (list) {
    const edges = list[1]!.split(',').map((t) => {
      const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(t);
      if (!m) throw new RangeArgError(`graph ${quote(src)}: expected edges like 0-1 but found ${quote(t.trim())}`);
      return [Number(m[1]), Number(m[2])] as [number, number];
    });
    const n = edges.reduce((m, [a, b]) => Math.max(m, a, b), 0) + 1;
    if (n > MAX_VERTICES) throw new RangeArgError(`graph ${quote(src)}: at most ${MAX_VERTICES} vertices, got vertex ${n - 1}`);
    return { n, edges };
  }
  throw new RangeArgError(`graph ${quote(src)}: expected cycle(n), path(n), complete(n), star(n) or an edge list like (0-1,1-2)`);
}

export function adjacency(g: Graph): Float64Array {
  const A = new Float64Array(g.n * g.n);
  for (const [i, j] of g.edges) {
    if (i === j) continue;
    A[i * g.n + j] = 1;
    A[j * g.n + i] = 1;
  }
  return A;
}

/**
 * The message-passing mixers: the S(n) end on V → V (span{I, 11ᵀ}) restricted to the
 * graph's support {(i,j) : i = j or i ~ j} (seed 001: "if we further restrict interactions
 * by adjacency, we recover message passing") — span{I, A}.
 */
export function messagePassingMixers(g: Graph): Float64Array[] {
  const n = g.n,
    A = adjacency(g);
  const masked = mixersOf(cachedBasis(symmetric(n), V, V)).map((M) => M.map((v, t) => (Math.floor(t / n) === t % n || A[t]! ? v : 0)));
  // keep an orthonormal basis of the span of the restricted maps
  const kept: Float64Array[] = [];
  for (const M of masked) {
    const v = Float64Array.from(M);
    for (const k of kept) {
      const d = v.reduce((s, x, t) => s + x * k[t]!, 0);
      for (let t = 0; t < v.length; t++) v[t]! -= d * k[t]!;
    }
    if (frobenius(v) > 1e-9) {
      // not Math.hypot(...v): n² arguments overflow the stack from n ≈ 320
      orthonormalizeRows(v, 1, v.length);
      kept.push(v);
    }
  }
  return kept;
}

/**
 * message_passing(graph, cin, cout): y_i = Λ₁x_i + Λ₂Σ_{j~i} x_j + b (up to the basis'
 * normalisation), derived as the restriction of the DeepSets end to the graph. Equivariant
 * under the graph's automorphisms, and under relabelling graph and features together.
 */
export function messagePassing(graph: Graph | string, cin: number, cout: number): Para {
  const g = typeof graph === 'string' ? parseGraph(graph) : graph;
  const text = typeof graph === 'string' ? graph.trim() : `(${g.edges.map(([i, j]) => `${i}-${j}`).join(',')})`;
  return pointMixing('message_passing', [text, cin, cout], messagePassingMixers(g), g.n, cin, cout);
}
