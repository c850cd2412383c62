import { RangeArgError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { convForwards } from '../conv2d.js';
import { FusableLayer } from '../fuse.js';
import type { Unfolding } from '../conv-lens.js';
import { glorotUniform, zeros } from '../initializers.js';
import { translations1d, translations2d } from '../../symmetry/group/group.js';
import type { Group } from '../../symmetry/group/group.js';
import { V } from '../../symmetry/group/rep.js';
import { cachedBasis } from '../../symmetry/solve/resolve.js';

/**
 * The weight tying of convolution, derived: the end over the translations of a periodic
 * grid, Hom_T(V, V), has one basis element per relative offset — K(q, p) = κ(p − q) (seed
 * 001, "Translations: convolutions and CNN tying"). Reads each derived basis element's
 * offset off its first row and returns, for every offset kept by `keep`, the neighbour
 * index map src[j·N + q] = the grid point at offset j from q.
 */
export function derivedOffsets(G: Group, keep: (p: number) => boolean): { offsets: number[]; src: Int32Array } {
  const N = G.d;
  const b = cachedBasis(G, V, V);
  const found: { offset: number; k: number }[] = [];
  for (let k = 0; k < b.dim; k++) {
    // the point p with K(0, p) ≠ 0 names the offset of basis element k
    for (let x = b.basis.rowPtr[k]!; x < b.basis.rowPtr[k + 1]!; x++) {
      const c = b.basis.colIdx[x]!;
      if (c < N && keep(c)) found.push({ offset: c, k });
    }
  }
  found.sort((u, v) => u.offset - v.offset);
  const offsets = found.map((f) => f.offset);
  const src = new Int32Array(offsets.length * N);
  found.forEach(({ k }, j) => {
    // basis element k, containing (0, p), also contains (q, σ(p)) for the translation σ: 0 ↦ q
    for (let x = b.basis.rowPtr[k]!; x < b.basis.rowPtr[k + 1]!; x++) {
      const c = b.basis.colIdx[x]!;
      src[j * N + Math.floor(c / N)] = c % N;
    }
  });
  return { offsets, src };
}

/**
 * The unfolding of a convolution over a periodic grid of N points with K tied offsets: row
 * (c, j) of a sample's column matrix holds X[c, src_j(q)] at column q, the input at offset j
 * from q — the derived neighbour map where a sliding window has index arithmetic.
 */
function neighbourUnfolding(src: Int32Array, K: number, cin: number, N: number): Unfolding {
  // at[(c·K + j)·N + q]: the element of a sample that row (c, j), column q reads
  const CK = cin * K,
    at = new Int32Array(CK * N);
  for (let c = 0; c < cin; c++) for (let j = 0; j < K; j++) for (let q = 0; q < N; q++) at[(c * K + j) * N + q] = c * N + src[j * N + q]!;
  return {
    K: CK,
    P: N,
    S: cin * N,
    unfold(_be, x, xOff, count, col, ld) {
      for (let s = 0; s < count; s++)
        for (let r = 0, xo = xOff + s * cin * N; r < CK; r++) for (let q = 0, co = r * ld + s * N, io = r * N; q < N; q++) col[co + q] = x[xo + at[io + q]!]!;
    },
    fold(_be, col, ld, count, dx, xOff) {
      for (let s = 0; s < count; s++)
        for (let r = 0, xo = xOff + s * cin * N; r < CK; r++)
          for (let q = 0, co = r * ld + s * N, io = r * N; q < N; q++) dx[xo + at[io + q]!]! += col[co + q]!;
    },
  };
}

/**
 * A convolution over a periodic grid of N points with K tied offsets, executed as the
 * neighbour map's unfolding + one matrix product per batch chunk (src/nn/conv-lens.ts):
 * Y[o, q] = Σ_{c,j} W[o, c, j]·X[c, src_j(q)] + b[o]. Per-sample shapes [cin, …grid] → [cout, …grid].
 */
function gridConv(kind: string, args: number[], grid: number[], src: Int32Array, K: number, cin: number, cout: number): Para {
  const N = grid.reduce((a, b) => a * b, 1),
    CK = cin * K;
  const geometry = { unfolding: neighbourUnfolding(src, K, cin, N), cod: [cout, ...grid] };
  const lens = convForwards(
    () => self,
    geometry,
    () => geometry,
    cout,
  );
  const self: Para = new FusableLayer(
    {
      kind,
      args,
      dom: [cin, ...grid],
      cod: geometry.cod,
      params: [
        { name: 'weight', shape: [cout, cin, K], init: glorotUniform(CK, cout * K) },
        { name: 'bias', shape: [cout], init: zeros },
      ],
      forward: lens.forward,
    },
    lens.withActivation,
  );
  return self;
}

const checkPos = (what: string, vals: Record<string, number>): void => {
  for (const [k, v] of Object.entries(vals)) if (!(Number.isInteger(v) && v > 0)) throw new RangeArgError(`${what} needs positive integers, got ${k}=${v}`);
};

/**
 * conv1d_periodic(n, cin, cout, k): the translation-equivariant linear layer on a periodic
 * 1-D grid of n points, restricted to the k nearest offsets (k odd): derived from the end
 * over Trans(n), run as im2col + gemm. Cross-correlation with circular padding:
 * y[o, q] = Σ_{c, δ} W[o, c, δ + k//2]·x[c, q + δ] + b[o], δ ∈ [−k//2, k//2].
 */
export function conv1dPeriodic(n: number, cin: number, cout: number, k: number): Para {
  checkPos('conv1d_periodic(n,cin,cout,k)', { n, cin, cout, k });
  if (k % 2 === 0 || k > n) throw new RangeArgError(`conv1d_periodic: kernel size k must be odd and ≤ n, got k=${k}, n=${n}`);
  const r = (k - 1) / 2;
  const signed = (p: number): number => (p > n / 2 ? p - n : p);
  const { offsets, src } = derivedOffsets(translations1d(n), (p) => Math.abs(signed(p)) <= r);
  // order the taps by signed offset −r … r
  const order = offsets.map((p, j) => ({ d: signed(p), j })).sort((a, b) => a.d - b.d);
  const tapSrc = new Int32Array(k * n);
  order.forEach(({ j }, t) => tapSrc.set(src.subarray(j * n, (j + 1) * n), t * n));
  return gridConv('conv1d_periodic', [n, cin, cout, k], [n], tapSrc, k, cin, cout);
}

/**
 * conv2d_periodic(h, w, cin, cout, k): the same on a periodic h×w grid with a k×k window,
 * derived from the end over Trans(h, w); taps in row-major (dr, dc) order, like PyTorch's
 * weight[o, c, i, j] flattened over (i, j).
 */
export function conv2dPeriodic(h: number, w: number, cin: number, cout: number, k: number): Para {
  checkPos('conv2d_periodic(h,w,cin,cout,k)', { h, w, cin, cout, k });
  if (k % 2 === 0 || k > h || k > w) throw new RangeArgError(`conv2d_periodic: kernel size k must be odd and ≤ h, w; got k=${k}, h=${h}, w=${w}`);
  const r = (k - 1) / 2,
    N = h * w;
  const sr = (p: number): number => {
    const a = Math.floor(p / w);
    return a > h / 2 ? a - h : a;
  };
  const sc = (p: number): number => {
    const a = p % w;
    return a > w / 2 ? a - w : a;
  };
  const { offsets, src } = derivedOffsets(translations2d(h, w), (p) => Math.abs(sr(p)) <= r && Math.abs(sc(p)) <= r);
  const order = offsets.map((p, j) => ({ key: (sr(p) + r) * k + (sc(p) + r), j })).sort((a, b) => a.key - b.key);
  const tapSrc = new Int32Array(k * k * N);
  order.forEach(({ j }, t) => tapSrc.set(src.subarray(j * N, (j + 1) * N), t * N));
  return gridConv('conv2d_periodic', [h, w, cin, cout, k], [h, w], tapSrc, k * k, cin, cout);
}
