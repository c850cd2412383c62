import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/category.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { glorotUniform, zeros } from '../../nn/init.js';
import { backend } from '../../tensor/index.js';
import { translations1d, translations2d } from '../group/group.js';
import type { Group } from '../group/group.js';
import { V } from '../group/rep.js';
import { cachedBasis } from '../solve/resolve.js';

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
 * A convolution over a periodic grid of N points with K tied offsets, executed as
 * im2col + one matrix product per sample (the backend's gemm):
 * Y[o, q] = Σ_{c,j} W[o, c, j]·X[c, src_j(q)] + b[o]. Per-sample shapes [cin, …grid] → [cout, …grid].
 */
function gridConv(kind: string, args: number[], grid: number[], src: Int32Array, K: number, cin: number, cout: number): Para {
  const N = grid.reduce((a, b) => a * b, 1), CK = cin * K;
  const self: Para = primitive({
    kind,
    args,
    dom: [cin, ...grid],
    cod: [cout, ...grid],
    params: [
      { name: 'weight', shape: [cout, cin, K], init: glorotUniform(CK, cout * K) },
      { name: 'bias', shape: [cout], init: zeros },
    ],
    forward: ([W, bias], x, ctx) => {
      checkInput(self, x);
      const be = backend();
      const B = x.batch, dt = x.dtype, X = x.data;
      const cols = ctx.alloc([B, CK, N], dt), C = cols.data;
      for (let s = 0; s < B; s++)
        for (let c = 0; c < cin; c++)
          for (let j = 0; j < K; j++) {
            const row = (s * CK + c * K + j) * N, xo = (s * cin + c) * N;
            for (let q = 0; q < N; q++) C[row + q] = X[xo + src[j * N + q]!]!;
          }
      const y = ctx.alloc([B, cout, ...grid], dt), Y = y.data;
      for (let s = 0; s < B; s++) {
        const ys = Y.subarray(s * cout * N, (s + 1) * cout * N);
        be.gemm(false, false, cout, N, CK, W!.data, C.subarray(s * CK * N, (s + 1) * CK * N), ys, false);
        for (let o = 0; o < cout; o++) for (let q = 0; q < N; q++) ys[o * N + q] += bias!.data[o]!;
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const D = dy.data;
          const dx = ctx.alloc([B, cin, ...grid], dt);
          const dcols = ctx.alloc([CK, N], dt);
          for (let s = 0; s < B; s++) {
            const ds = D.subarray(s * cout * N, (s + 1) * cout * N);
            if (dTheta) {
              be.gemm(false, true, cout, CK, N, ds, C.subarray(s * CK * N, (s + 1) * CK * N), dTheta[0]!.data, true);
              for (let o = 0; o < cout; o++) {
                let t = 0;
                for (let q = 0; q < N; q++) t += ds[o * N + q]!;
                dTheta[1]!.data[o] += t;
              }
            }
            if (needDx) {
              be.gemm(true, false, CK, N, cout, W!.data, ds, dcols.data, false);
              for (let c = 0; c < cin; c++)
                for (let j = 0; j < K; j++) {
                  const row = (c * K + j) * N, xo = (s * cin + c) * N;
                  for (let q = 0; q < N; q++) dx.data[xo + src[j * N + q]!] += dcols.data[row + q]!;
                }
            }
          }
          return dx;
        },
      };
    },
  });
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
  const r = (k - 1) / 2, N = h * w;
  const sr = (p: number): number => { const a = Math.floor(p / w); return a > h / 2 ? a - h : a; };
  const sc = (p: number): number => { const a = p % w; return a > w / 2 ? a - w : a; };
  const { offsets, src } = derivedOffsets(translations2d(h, w), (p) => Math.abs(sr(p)) <= r && Math.abs(sc(p)) <= r);
  const order = offsets.map((p, j) => ({ key: (sr(p) + r) * k + (sc(p) + r), j })).sort((a, b) => a.key - b.key);
  const tapSrc = new Int32Array(k * k * N);
  order.forEach(({ j }, t) => tapSrc.set(src.subarray(j * N, (j + 1) * N), t * N));
  return gridConv('conv2d_periodic', [h, w, cin, cout, k], [h, w], tapSrc, k * k, cin, cout);
}
