import { RangeArgError, ShapeError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import type { Ctx, Lens, Para, ParamSpec } from '../../para/para.js';
import { Rng } from '../../random/rng.js';
import { Tensor } from '../../tensor/tensor.js';
import type { DType } from '../../tensor/tensor.js';

/**
 * A polynomial endofunctor P(X) = Σ_c L_c × X^{n_c}: constructors c, each with a label of L_c
 * features and n_c recursive positions. Its initial algebra is the set of finite trees whose
 * nodes are constructors — binary trees leaf(A) | node(X, X), lists nil | cons(A, X), expression
 * trees with an operator per node. (Gavranović et al. 2024: recursive networks are folds over
 * such trees, as recurrent ones are folds over lists.)
 */
export interface Constructor {
  readonly name: string;
  /** Features of the label the node carries (0: none). */
  readonly label: number;
  /** Recursive positions (children). */
  readonly arity: number;
}

export interface PolynomialFunctor {
  readonly name: string;
  readonly constructors: readonly Constructor[];
}

/** A functor from its constructors, checked: distinct names, sizes ≥ 0, at least one constructor without children (else no finite tree exists). */
export function polynomial(name: string, constructors: readonly Constructor[]): PolynomialFunctor {
  if (new Set(constructors.map((c) => c.name)).size !== constructors.length) throw new RangeArgError(`${name}: constructor names must be distinct`);
  for (const c of constructors) {
    if (!(Number.isInteger(c.label) && c.label >= 0 && Number.isInteger(c.arity) && c.arity >= 0))
      throw new RangeArgError(`${name}: constructor ${c.name} needs a label size and an arity that are integers ≥ 0`);
  }
  if (!constructors.some((c) => c.arity === 0)) throw new RangeArgError(`${name}: some constructor must have no children, or no tree is finite`);
  return { name, constructors };
}

/** Binary trees with labelled leaves: leaf(A) | node(T, T). */
export const binaryTrees = (A: number): PolynomialFunctor =>
  polynomial(`binary trees over ${A}`, [
    { name: 'leaf', label: A, arity: 0 },
    { name: 'node', label: 0, arity: 2 },
  ]);

/** Lists: nil | cons(A, T) — the functor 1 + A × X whose algebras are the recurrent cells with their initial state. */
export const lists = (A: number): PolynomialFunctor =>
  polynomial(`lists over ${A}`, [
    { name: 'nil', label: 0, arity: 0 },
    { name: 'cons', label: A, arity: 1 },
  ]);

/** A tree of a polynomial functor: a constructor (its index), its label, its children. */
export interface Tree {
  readonly c: number;
  readonly label: ArrayLike<number>;
  readonly children: readonly Tree[];
}

/**
 * A P-algebra in Para with carrier S: for each constructor c a morphism
 * alg_c: [L_c + n_c·S] → [S] (the label, then the children's states side by side). Its
 * parameters are the constructors' morphisms' in order, named `constructor.name`.
 */
export interface TreeAlgebra {
  readonly functor: PolynomialFunctor;
  readonly state: number;
  readonly morphisms: readonly Para[];
  readonly params: readonly ParamSpec[];
}

export function treeAlgebra(functor: PolynomialFunctor, state: number, morphisms: readonly Para[]): TreeAlgebra {
  if (morphisms.length !== functor.constructors.length)
    throw new ShapeError(`${functor.name} has ${functor.constructors.length} constructors but the algebra gives ${morphisms.length} morphisms`);
  morphisms.forEach((m, i) => {
    const c = functor.constructors[i]!;
    const want = c.label + c.arity * state;
    if (!m.dom || !m.cod || m.dom.length !== 1 || m.dom[0] !== want || m.cod.length !== 1 || m.cod[0] !== state)
      throw new ShapeError(
        `the algebra's morphism for ${c.name} must map [${want}] (label ${c.label} + ${c.arity} states of ${state}) to [${state}], but ${m} maps [${m.dom?.join(',') ?? '…'}] to [${m.cod?.join(',') ?? '…'}]`,
      );
  });
  const params = morphisms.flatMap((m, i) => m.params.map((p) => ({ ...p, name: `${functor.constructors[i]!.name}.${p.name}` })));
  return { functor, state, morphisms, params };
}

/** Fresh parameters of an algebra. */
export function initAlgebra(alg: TreeAlgebra, seed: number | Rng = 0, dtype: DType = 'float32'): Tensor[] {
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  return alg.morphisms.flatMap((m) => m.init(rng, dtype));
}

/** The fold of a forest at a point: the roots' states [trees, S], and the pullback to θ (added into dTheta) and to the labels. */
export interface TreeFoldLens {
  readonly y: Tensor;
  pullback(dy: Tensor, dTheta: readonly Tensor[] | null): number[][];
}

/**
 * The catamorphism of an algebra over a forest, as a lens: fold(c(l, t₁, …, tₙ)) =
 * alg_c(l, fold t₁, …, fold tₙ). The nodes are evaluated bottom-up in batches — all nodes of one
 * constructor at one height are one forward of alg_c — and the pullback runs the batches in
 * reverse, each adding its parameter gradient into the constructor's slice of dTheta (the
 * parameter is shared by every node: its gradient is the sum over nodes) and sending each
 * child's part of dx to that child. It returns the gradient of every node's label, node by
 * node in the order the trees list them (depth first, parent first).
 */
export function foldTrees(alg: TreeAlgebra, theta: readonly Tensor[], trees: readonly Tree[], ctx: Ctx, dtype: DType = 'float32'): TreeFoldLens {
  const { functor, state: S } = alg;
  const K = functor.constructors.length;
  // number the nodes depth first (parent before children), with their heights
  const nodes: { t: Tree; height: number; children: number[] }[] = [];
  const visit = (t: Tree): number => {
    const c = functor.constructors[t.c];
    if (!c) throw new RangeArgError(`${functor.name}: a node names constructor ${t.c}, but there are ${K}`);
    if (t.children.length !== c.arity || t.label.length !== c.label)
      throw new ShapeError(
        `${functor.name}: a ${c.name} node needs ${c.arity} children and a label of ${c.label}, got ${t.children.length} and ${t.label.length}`,
      );
    const i = nodes.push({ t, height: 0, children: [] }) - 1;
    const kids = t.children.map(visit);
    nodes[i]!.children = kids;
    nodes[i]!.height = kids.reduce((h, k) => Math.max(h, nodes[k]!.height + 1), 0);
    return i;
  };
  const roots = trees.map(visit);
  const offsets: number[] = [];
  let off = 0;
  for (const m of alg.morphisms) {
    offsets.push(off);
    off += m.params.length;
  }
  const slice = (c: number, ts: readonly Tensor[]): Tensor[] => ts.slice(offsets[c], offsets[c]! + alg.morphisms[c]!.params.length);
  // batches: (height, constructor) → nodes, bottom-up
  const maxH = nodes.reduce((h, n) => Math.max(h, n.height), 0);
  const batches: { c: number; ids: number[] }[] = [];
  for (let h = 0; h <= maxH; h++) {
    for (let c = 0; c < K; c++) {
      const ids = nodes.flatMap((n, i) => (n.height === h && n.t.c === c ? [i] : []));
      if (ids.length) batches.push({ c, ids });
    }
  }
  const states = new Tensor(dtype === 'float64' ? new Float64Array(nodes.length * S) : new Float32Array(nodes.length * S), [nodes.length, S]);
  const lenses: Lens[] = [];
  for (const { c, ids } of batches) {
    const con = functor.constructors[c]!,
      width = con.label + con.arity * S;
    const x = ctx.alloc([ids.length, width], dtype, true);
    ids.forEach((i, r) => {
      const n = nodes[i]!;
      const row = r * width;
      for (let j = 0; j < con.label; j++) x.data[row + j] = n.t.label[j]!;
      n.children.forEach((k, a) => x.data.set(states.data.subarray(k * S, (k + 1) * S), row + con.label + a * S));
    });
    const lens = alg.morphisms[c]!.forward(slice(c, theta), x, ctx);
    ids.forEach((i, r) => states.data.set(lens.y.data.subarray(r * S, (r + 1) * S), i * S));
    lenses.push(lens);
  }
  const y = ctx.alloc([roots.length, S], dtype, true);
  roots.forEach((i, r) => y.data.set(states.data.subarray(i * S, (i + 1) * S), r * S));
  return {
    y,
    pullback: (dy, dTheta) => {
      const dStates = new Float64Array(nodes.length * S);
      roots.forEach((i, r) => {
        for (let j = 0; j < S; j++) dStates[i * S + j] = dStates[i * S + j]! + dy.data[r * S + j]!;
      });
      const dLabels: number[][] = nodes.map((n) => new Array<number>(n.t.label.length).fill(0));
      for (let b = batches.length - 1; b >= 0; b--) {
        const { c, ids } = batches[b]!;
        const con = functor.constructors[c]!,
          width = con.label + con.arity * S;
        const d = ctx.alloc([ids.length, S], dtype, true);
        ids.forEach((i, r) => {
          for (let j = 0; j < S; j++) d.data[r * S + j] = dStates[i * S + j]!;
        });
        const dx = lenses[b]!.pullback(d, dTheta && slice(c, dTheta), true);
        ids.forEach((i, r) => {
          const n = nodes[i]!,
            row = r * width;
          for (let j = 0; j < con.label; j++) dLabels[i]![j] = dx.data[row + j]!;
          n.children.forEach((k, a) => {
            for (let j = 0; j < S; j++) dStates[k * S + j] = dStates[k * S + j]! + dx.data[row + con.label + a * S + j]!;
          });
        });
      }
      return dLabels;
    },
  };
}

/**
 * The list algebra of a recurrent cell with its initial state 0: nil ↦ 0 and cons(a, s) ↦ the
 * state part of c(s, a) — the algebra for 1 + A × − that the cell is. `step` is the cell's
 * morphism S ⊗ A → S ⊗ B ([S + A] → [S + B]); the cons morphism reads [a, s] (label first).
 */
export function listAlgebra(step: Para, S: number): TreeAlgebra {
  const A = step.dom![0]! - S,
    B = step.cod![0]! - S;
  const zero = primitive({
    kind: 'zero',
    args: [S],
    dom: [0],
    cod: [S],
    forward: (_t, x, ctx) => ({ y: ctx.alloc([x.batch, S], x.dtype), pullback: () => ctx.alloc(x.shape, x.dtype) }),
  });
  const cons = primitive({
    kind: 'cons',
    args: [String(step)],
    dom: [A + S],
    cod: [S],
    params: step.params,
    forward: (theta, x, ctx) => {
      const N = x.batch;
      // [a, s] → [s, a], the cell, then its state
      const swapped = ctx.alloc([N, S + A], x.dtype, true);
      for (let r = 0; r < N; r++) {
        swapped.data.set(x.data.subarray(r * (A + S) + A, (r + 1) * (A + S)), r * (S + A));
        swapped.data.set(x.data.subarray(r * (A + S), r * (A + S) + A), r * (S + A) + S);
      }
      const lens = step.forward(theta, swapped, ctx);
      const y = ctx.alloc([N, S], x.dtype, true);
      for (let r = 0; r < N; r++) y.data.set(lens.y.data.subarray(r * (S + B), r * (S + B) + S), r * S);
      return {
        y,
        pullback: (dy, dTheta) => {
          const dOut = ctx.alloc([N, S + B], x.dtype);
          for (let r = 0; r < N; r++) dOut.data.set(dy.data.subarray(r * S, (r + 1) * S), r * (S + B));
          const dIn = lens.pullback(dOut, dTheta, true);
          const dx = ctx.alloc(x.shape, x.dtype, true);
          for (let r = 0; r < N; r++) {
            dx.data.set(dIn.data.subarray(r * (S + A) + S, (r + 1) * (S + A)), r * (A + S));
            dx.data.set(dIn.data.subarray(r * (S + A), r * (S + A) + S), r * (A + S) + A);
          }
          return dx;
        },
      };
    },
  });
  return treeAlgebra(lists(A), S, [zero, cons]);
}

/** The list x₁ … x_T as a tree of `lists`: cons(x_T, … cons(x₁, nil)), so that the fold reads x₁ first. */
export function listTree(xs: readonly ArrayLike<number>[]): Tree {
  return xs.reduce<Tree>((rest, x) => ({ c: 1, label: x, children: [rest] }), { c: 0, label: [], children: [] });
}
