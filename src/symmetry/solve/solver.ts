import { Rng } from '../../random/rng.js';
import { SolveTooLargeError, formatBytes } from '../group/errors.js';
import { formatCount } from '../../errors.js';
import type { Group } from '../group/group.js';
import { iterativeNullspace } from '../../linalg/iterative.js';
import type { LinearOperator } from '../../linalg/iterative.js';
import { nullspace } from '../../linalg/nullspace.js';
import { pairOrbits } from './orbits.js';
import { atomDiscrete, atomKey, atomLie, atomPerm, atoms, isOrthogonal, repMatrix, repMeasure, repToString } from '../group/rep.js';
import type { Atom, Rep } from '../group/rep.js';
import { csrFromUniqueTriples, nnz, sparseEye, sparseKron, sparseLinComb, sparseTranspose, spmmLeft, spmmRight } from '../../linalg/sparse.js';
import type { Sparse } from '../../linalg/sparse.js';
import type { Mat } from '../../linalg/matrix.js';

export interface SolveOptions {
  /** Unknowns per block up to which the dense solver is used (default 1200). */
  denseLimit?: number;
  /** Refuse solves whose estimated memory exceeds this many bytes (default 1 GiB). */
  maxBytes?: number;
  /** Largest nullspace the iterative solver will build per block (default 512). */
  maxDim?: number;
  /** Seed for the iterative solver and the measured equivariance error. */
  seed?: number;
  /** Measure ‖ρ_out(g)W − Wρ_in(g)‖ on this many random g when the representations are small (default 3). */
  samples?: number;
}

/** One distinct pair of atoms (output block ← input block) and how its end was found. */
export interface BlockSolve {
  readonly out: string;
  readonly in: string;
  readonly unknowns: number;
  readonly dim: number;
  readonly method: 'orbits' | 'dense' | 'iterative';
  /** How many (output atom, input atom) blocks of the whole map share this solve. */
  readonly uses: number;
  readonly seconds: number;
}

/**
 * An orthonormal basis of Hom_G(ρ_in, ρ_out) — the end ∫_g Hom(ρ_in(g)·, ρ_out(g)·) — as the
 * rows of a sparse dim × (nOut·nIn) matrix; row b is W_b flattened row-major (W_b is
 * nOut×nIn, acting on column vectors: y = W x).
 */
export interface EquivariantBasis {
  readonly group: string;
  readonly in: string;
  readonly out: string;
  readonly nIn: number;
  readonly nOut: number;
  readonly dim: number;
  readonly basis: Sparse;
  readonly blocks: readonly BlockSolve[];
  /** max over basis elements and generators of ‖ρ_out(h)W − Wρ_in(h)‖/‖W‖ (Lie: dρ_out(A)W − W dρ_in(A)). */
  readonly generatorResidual: number;
  /** max over basis elements and random g of ‖ρ_out(g)W − Wρ_in(g)‖_F/‖W‖_F, when measured. */
  readonly randomElementError?: number;
  /** The error of every basis element: on random elements when measured, else its generator residual. */
  readonly elementErrors: Float64Array;
  readonly seconds: number;
}

interface BlockResult {
  /** k×n dense rows, or orbit labels. */
  rows?: Float64Array;
  label?: Int32Array;
  sizes?: Int32Array;
  dim: number;
  method: BlockSolve['method'];
  residual: number;
  /** Generator residual of each basis element of the block. */
  residuals: Float64Array;
  seconds: number;
}

const DEFAULTS = { denseLimit: 1200, maxBytes: 2 ** 30, maxDim: 512, samples: 3 };

/** The generator pairs of a block: for each discrete generator (ρ_out(h), ρ_in(h)), for each Lie generator (dρ_out(A), dρ_in(A)). */
function blockGenerators(G: Group, ao: Atom, ai: Atom): GeneratorPair[] {
  return [
    ...G.discrete.map((h) => ({ out: atomDiscrete(ao.factors, h), in: atomDiscrete(ai.factors, h) })),
    ...G.lie.map((A) => ({ out: atomLie(ao.factors, A, G.d), in: atomLie(ai.factors, A, G.d) })),
  ];
}

/** C_h = ρ_out(h)⊗I − I⊗ρ_in(h)ᵀ on row-major vec(W) (the stacked constraints). */
function constraintMatrix(g: GeneratorPair): Sparse {
  return sparseLinComb([
    { s: 1, m: sparseKron(g.out, sparseEye(g.in.rows)) },
    { s: -1, m: sparseKron(sparseEye(g.out.rows), sparseTranspose(g.in)) },
  ]);
}

/** The stacked constraint as a matrix-free operator: w ↦ [ρ_out(h)W − Wρ_in(h)]_h. */
function constraintOperator(gens: GeneratorPair[], no: number, ni: number): LinearOperator {
  const n = no * ni;
  const outT = gens.map((g) => sparseTranspose(g.out)),
    inT = gens.map((g) => sparseTranspose(g.in));
  // one spmm per side and generator: every stored value of ρ_out(h) meets ni entries, of ρ_in(h) no
  const cost = gens.reduce((c, g) => c + g.out.vals.length * ni + no * g.in.vals.length, 0);
  return {
    n,
    m: n * gens.length,
    cost,
    apply(x, y) {
      gens.forEach((g, k) => {
        const yk = y.subarray(k * n, (k + 1) * n);
        spmmLeft(g.out, x, ni, yk);
        spmmRight(x, no, g.in, yk, -1, true);
      });
    },
    applyT(y, x) {
      x.fill(0);
      gens.forEach((_, k) => {
        const yk = y.subarray(k * n, (k + 1) * n);
        spmmLeft(outT[k]!, yk, ni, x, 1, true);
        spmmRight(yk, no, inT[k]!, x, -1, true);
      });
    },
  };
}

/** The most constraints (unknowns × generators) an iterative solve takes on: 256 MiB for its two vectors of them. */
const MAX_CONSTRAINTS = 1.6e7;

/**
 * The iterative solve keeps two vectors of every constraint (`unknowns` per generator): refused
 * before they exist, and — from planSolve — before the generators' images on the block are built.
 */
function checkConstraints(unknowns: number, generators: number, denseLimit: number): void {
  if (unknowns > denseLimit && unknowns * generators > MAX_CONSTRAINTS) {
    throw new SolveTooLargeError(
      `the end solver: ${formatCount(unknowns)} unknowns under ${generators} generators are ${formatCount(unknowns * generators)} constraints; at most ${formatCount(MAX_CONSTRAINTS)} (fewer generators: a smaller group, or smaller representations)`,
      16 * unknowns * generators,
    );
  }
}

/** The most steps the measured equivariance error may take (beyond it the generator residual is reported). */
const MAX_MEASURE_WORK = 5e7;

/** The most (output atom, input atom) blocks a solve may visit: each is looked at once. */
export const MAX_BLOCKS = 1e6;

/**
 * What a solve costs before its blocks are known, from the sizes alone (nothing is built):
 * the atoms' coordinate lists (4 bytes per coordinate) and, for permutation groups, the
 * embedded basis itself — every (output, input) pair lies in exactly one orbit, so it has
 * nOut·nIn entries (a triple of 16 bytes and a CSR entry of 12). The block solves are
 * estimated by `estimateBlockBytes` once the atoms exist.
 */
function checkSolveSize(G: Group, repIn: Rep, repOut: Rep, maxBytes: number): { nIn: number; nOut: number; fixedBytes: number } {
  const mi = repMeasure(repIn, G.d),
    mo = repMeasure(repOut, G.d);
  const nIn = mi.size,
    nOut = mo.size,
    unknowns = nIn * nOut,
    blocks = mi.atoms * mo.atoms;
  const what = `derive ${G.name}: ${repToString(repIn)} → ${repToString(repOut)}`;
  if (!(unknowns < 2 ** 31)) {
    const bytes = (G.perms ? 28 : 8) * unknowns;
    throw new SolveTooLargeError(
      `${what} is a ${formatCount(nOut)}×${formatCount(nIn)} map (${formatCount(unknowns)} unknowns, more than 2^31): it needs about ${formatBytes(bytes)}; use smaller representations`,
      bytes,
    );
  }
  if (!(blocks <= MAX_BLOCKS)) {
    throw new SolveTooLargeError(
      `${what} splits into ${formatCount(blocks)} blocks (${formatCount(mo.atoms)}×${formatCount(mi.atoms)} atoms); at most ${formatCount(MAX_BLOCKS)} (write sums of fewer terms)`,
      64 * blocks,
    );
  }
  const fixedBytes = 4 * (nIn + nOut) + 64 * (mi.atoms + mo.atoms) + (G.perms ? 28 * unknowns : 0);
  if (fixedBytes > maxBytes) {
    throw new SolveTooLargeError(
      `${what} needs about ${formatBytes(fixedBytes)} for its ${nOut}×${nIn} map but the limit is ${formatBytes(maxBytes)}; use smaller representations or raise the limit`,
      fixedBytes,
    );
  }
  return { nIn, nOut, fixedBytes };
}

/** Memory a block solve needs, in bytes (what `maxBytes` is compared with). */
export function estimateBlockBytes(
  G: Group,
  ao: Atom,
  ai: Atom,
  opts: { denseLimit: number; maxDim: number },
): { bytes: number; method: BlockSolve['method'] } {
  const n = ao.pos.length * ai.pos.length;
  // union-find, labels, and the embedded sparse basis (triples + CSR)
  if (G.perms) return { bytes: 44 * n, method: 'orbits' };
  if (n <= opts.denseLimit) return { bytes: 8 * n * n * 2, method: 'dense' };
  const gens = G.discrete.length + G.lie.length;
  return { bytes: 8 * n * (Math.min(opts.maxDim, n) + 2 + 2 * gens), method: 'iterative' };
}

/** A generator's images on the two sides of Hom(ρ_in, ρ_out): ρ_out(h), ρ_in(h) (or dρ_out(A), dρ_in(A)). */
export interface GeneratorPair {
  readonly out: Sparse;
  readonly in: Sparse;
}

/** An orthonormal basis of the end (rows of a dim × (no·ni) array), how it was found, and its generator residuals. */
export interface EndSolve {
  readonly rows: Float64Array;
  readonly dim: number;
  readonly method: 'dense' | 'iterative';
  /** max over basis elements of ‖[ρ_out(h)W − Wρ_in(h)]_h‖. */
  readonly residual: number;
  readonly residuals: Float64Array;
}

/**
 * The end for representations given by the images of the group's generators (no·ni unknowns):
 * an orthonormal basis of {W : ρ_out(h)W = Wρ_in(h) for every pair}. The dense nullspace up to
 * `denseLimit` unknowns, the matrix-free iterative solver beyond. This is what every block of
 * equivariantBasis runs, and what the irreducible representations (Clebsch–Gordan
 * coefficients, decompositions) call with their own generator images.
 */
export function solveEnd(
  gens: readonly GeneratorPair[],
  no: number,
  ni: number,
  options: Pick<SolveOptions, 'denseLimit' | 'maxDim' | 'seed'> & { rng?: Rng } = {},
): EndSolve {
  const o = { ...DEFAULTS, ...options };
  const rng = options.rng ?? new Rng(options.seed ?? 0);
  checkConstraints(no * ni, gens.length, o.denseLimit);
  const op = constraintOperator([...gens], no, ni);
  let rows: Float64Array, dim: number, method: EndSolve['method'];
  if (gens.length === 0) {
    rows = new Float64Array(no * ni * no * ni);
    for (let i = 0; i < no * ni; i++) rows[i * no * ni + i] = 1;
    dim = no * ni;
    method = 'dense';
  } else if (no * ni <= o.denseLimit) {
    const N = nullspace(gens.map(constraintMatrix));
    rows = N.data;
    dim = N.rows;
    method = 'dense';
  } else {
    const r = iterativeNullspace(op, { rng, maxDim: o.maxDim });
    rows = r.basis;
    dim = r.dim;
    method = 'iterative';
  }
  // measured residual of every basis element on every generator
  const n = no * ni,
    y = new Float64Array(op.m);
  let residual = 0;
  const residuals = new Float64Array(dim);
  if (gens.length)
    for (let b = 0; b < dim; b++) {
      op.apply(rows.subarray(b * n, (b + 1) * n), y);
      residuals[b] = Math.sqrt(y.reduce((a, v) => a + v * v, 0));
      residual = Math.max(residual, residuals[b]!);
    }
  return { rows, dim, method, residual, residuals };
}

function solveBlock(G: Group, ao: Atom, ai: Atom, o: Required<Pick<SolveOptions, 'denseLimit' | 'maxDim'>>, rng: Rng): BlockResult {
  const t0 = performance.now();
  const no = ao.pos.length,
    ni = ai.pos.length;
  if (G.perms) {
    const gens = G.perms.map((s) => ({ out: atomPerm(ao.factors, s), in: atomPerm(ai.factors, s) }));
    const orb = pairOrbits(no, ni, gens);
    return {
      label: orb.label,
      sizes: orb.sizes,
      dim: orb.count,
      method: 'orbits',
      residual: 0,
      residuals: new Float64Array(orb.count),
      seconds: (performance.now() - t0) / 1000,
    };
  }
  const r = solveEnd(blockGenerators(G, ao, ai), no, ni, { ...o, rng });
  return { ...r, seconds: (performance.now() - t0) / 1000 };
}

/** A solve before any block is solved: the atoms, the distinct blocks, and its estimated memory. */
interface SolvePlan {
  readonly nIn: number;
  readonly nOut: number;
  readonly ai: Atom[];
  readonly ao: Atom[];
  readonly keyOf: (a: Atom, b: Atom) => string;
  readonly distinct: Map<string, { a: Atom; b: Atom; uses: number }>;
  readonly bytes: number;
}

/**
 * Plans a solve and refuses it (SolveTooLargeError) when its estimate exceeds `maxBytes`: first
 * from the sizes alone, before any atom exists (checkSolveSize), then with the largest block.
 */
function planSolve(G: Group, repIn: Rep, repOut: Rep, o: typeof DEFAULTS): SolvePlan {
  const { nIn, nOut, fixedBytes } = checkSolveSize(G, repIn, repOut, o.maxBytes);
  const ai = atoms(repIn, G.d),
    ao = atoms(repOut, G.d);
  const orth = isOrthogonal(G);
  const keyOf = (a: Atom, b: Atom): string => `${atomKey(a, orth)}←${atomKey(b, orth)}`;
  const distinct = new Map<string, { a: Atom; b: Atom; uses: number }>();
  for (const a of ao)
    for (const b of ai) {
      const k = keyOf(a, b);
      const e = distinct.get(k);
      if (e) e.uses++;
      else distinct.set(k, { a, b, uses: 1 });
    }
  let peak = 0;
  for (const { a, b } of distinct.values()) {
    if (!G.perms) checkConstraints(a.pos.length * b.pos.length, G.discrete.length + G.lie.length, o.denseLimit);
    peak = Math.max(peak, estimateBlockBytes(G, a, b, o).bytes);
  }
  if (peak + fixedBytes > o.maxBytes) {
    throw new SolveTooLargeError(
      `derive ${G.name}: ${repToString(repIn)} → ${repToString(repOut)} needs about ${formatBytes(peak + fixedBytes)} (${formatBytes(peak)} for its largest block, ${nOut}×${nIn} map) but the limit is ${formatBytes(o.maxBytes)}; use smaller representations or raise the limit`,
      peak + fixedBytes,
    );
  }
  return { nIn, nOut, ai, ao, keyOf, distinct, bytes: peak + fixedBytes };
}

/**
 * The memory `equivariantBasis` would need, estimated without solving anything (so that a
 * layer built from a spec string is costed before it is made); a SolveTooLargeError when it
 * exceeds `maxBytes`.
 */
export function estimateBasisBytes(G: Group, repIn: Rep, repOut: Rep, options: SolveOptions = {}): number {
  return planSolve(G, repIn, repOut, { ...DEFAULTS, ...options }).bytes;
}

/**
 * The end solver: an orthonormal basis of Hom_G(ρ_in, ρ_out), in float64.
 *
 * Both representations are split into atoms (tensor products of V and V*, ⊗ distributed
 * over ⊕); Hom of direct sums is the direct sum of the Homs of the blocks, and each
 * distinct pair of atoms is solved once (multiplicities cost nothing). A block is solved by
 * orbits (permutation groups: exact), by the dense nullspace (≤ denseLimit unknowns) or by
 * the matrix-free iterative solver. A solve whose memory estimate exceeds `maxBytes` is
 * refused with the estimate before it starts.
 */
export function equivariantBasis(G: Group, repIn: Rep, repOut: Rep, options: SolveOptions = {}): EquivariantBasis {
  const t0 = performance.now();
  const o = { ...DEFAULTS, ...options };
  const rng = new Rng(options.seed ?? 0);
  const { nIn, nOut, ai, ao, keyOf, distinct } = planSolve(G, repIn, repOut, o);
  const solved = new Map<string, BlockResult>();
  const blocks: BlockSolve[] = [];
  for (const [k, { a, b, uses }] of distinct) {
    const r = solveBlock(G, a, b, o, rng);
    solved.set(k, r);
    const [outName, inName] = k.split('←');
    blocks.push({ out: outName!, in: inName!, unknowns: a.pos.length * b.pos.length, dim: r.dim, method: r.method, uses, seconds: r.seconds });
  }
  // embed block bases into the whole map: count entries, then fill typed triples
  let total = 0;
  for (const a of ao)
    for (const b of ai) {
      const r = solved.get(keyOf(a, b))!;
      if (r.label) total += a.pos.length * b.pos.length;
      else for (let x = 0; x < r.rows!.length; x++) if (Math.abs(r.rows![x]!) >= 1e-13) total++;
    }
  const R = new Int32Array(total),
    Cc = new Int32Array(total),
    Vv = new Float64Array(total);
  let dim = 0,
    residual = 0,
    e = 0;
  const elementErrors: number[] = [];
  for (const a of ao)
    for (const b of ai) {
      const r = solved.get(keyOf(a, b))!;
      const ni = b.pos.length,
        n = a.pos.length * ni;
      residual = Math.max(residual, r.residual);
      if (r.label) {
        for (let x = 0; x < n; x++) {
          const lab = r.label[x]!;
          R[e] = dim + lab;
          Cc[e] = a.pos[Math.floor(x / ni)]! * nIn + b.pos[x % ni]!;
          Vv[e++] = 1 / Math.sqrt(r.sizes![lab]!);
        }
      } else {
        for (let k = 0; k < r.dim; k++)
          for (let x = 0; x < n; x++) {
            const v = r.rows![k * n + x]!;
            if (Math.abs(v) < 1e-13) continue;
            R[e] = dim + k;
            Cc[e] = a.pos[Math.floor(x / ni)]! * nIn + b.pos[x % ni]!;
            Vv[e++] = v;
          }
      }
      for (const v of r.residuals) elementErrors.push(v); // a block can have 10⁵ basis elements: no spread
      dim += r.dim;
    }
  const basis = csrFromUniqueTriples(dim, nOut * nIn, R, Cc, Vv);
  let randomElementError: number | undefined;
  const errors = Float64Array.from(elementErrors);
  // measured on random elements when that is cheap: each sample costs about dim·nOut·nIn steps
  if (o.samples > 0 && nIn <= 400 && nOut <= 400 && nnz(basis) <= 2e6 && o.samples * dim * nOut * nIn <= MAX_MEASURE_WORK) {
    randomElementError = 0;
    errors.fill(0);
    for (let s = 0; s < o.samples; s++) {
      const g = G.sample(rng);
      const per = measureErrors(basis, repMatrix(repOut, g), repMatrix(repIn, g));
      per.forEach((v, k) => (errors[k] = Math.max(errors[k]!, v)));
    }
    randomElementError = errors.reduce((m, v) => Math.max(m, v), 0);
  }
  return {
    group: G.name,
    in: repToString(repIn),
    out: repToString(repOut),
    nIn,
    nOut,
    dim,
    basis,
    blocks,
    generatorResidual: residual,
    randomElementError,
    elementErrors: errors,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** max_b ‖ρ_out W_b − W_b ρ_in‖_F / ‖W_b‖_F for the rows W_b of a basis. */
export function measureError(basis: Sparse, rhoOut: Mat, rhoIn: Mat): number {
  return measureErrors(basis, rhoOut, rhoIn).reduce((m, v) => Math.max(m, v), 0);
}

/** ‖ρ_out W_b − W_b ρ_in‖_F / ‖W_b‖_F for every row W_b of a basis. */
export function measureErrors(basis: Sparse, rhoOut: Mat, rhoIn: Mat): number[] {
  const no = rhoOut.rows,
    ni = rhoIn.rows;
  const errs: number[] = [];
  const W = new Float64Array(no * ni),
    D = new Float64Array(no * ni);
  for (let b = 0; b < basis.rows; b++) {
    W.fill(0);
    for (let x = basis.rowPtr[b]!; x < basis.rowPtr[b + 1]!; x++) W[basis.colIdx[x]!] = basis.vals[x]!;
    D.fill(0);
    for (let i = 0; i < no; i++)
      for (let k = 0; k < no; k++) {
        const r = rhoOut.data[i * no + k]!;
        if (r === 0) continue;
        for (let j = 0; j < ni; j++) D[i * ni + j]! += r * W[k * ni + j]!;
      }
    for (let i = 0; i < no; i++)
      for (let k = 0; k < ni; k++) {
        const w = W[i * ni + k]!;
        if (w === 0) continue;
        for (let j = 0; j < ni; j++) D[i * ni + j]! -= w * rhoIn.data[k * ni + j]!;
      }
    const nw = Math.sqrt(W.reduce((a, v) => a + v * v, 0));
    errs.push(Math.sqrt(D.reduce((a, v) => a + v * v, 0)) / nw);
  }
  return errs;
}

/** The equivariance error of the whole solve: measured on random elements when available, else the generator residual. */
export function equivarianceError(b: EquivariantBasis): number {
  return b.randomElementError ?? b.generatorResidual;
}

/** Basis element b as a dense nOut×nIn matrix. */
export function basisMatrix(b: EquivariantBasis, k: number): Mat {
  const data = new Float64Array(b.nOut * b.nIn);
  const s = b.basis;
  for (let x = s.rowPtr[k]!; x < s.rowPtr[k + 1]!; x++) data[s.colIdx[x]!] = s.vals[x]!;
  return { rows: b.nOut, cols: b.nIn, data };
}
