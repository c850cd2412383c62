import type { Kernel } from './program.js';

/** Threads per workgroup of the one-dimensional kernels. */
export const WG = 256;
/** The gemm's output tile (TILE×TILE per workgroup of 16×16 threads, 4×4 outputs each) and its depth step. */
export const TILE = 64;

const guard = (n: string): string => `  if (tid >= ${n}) { return; }`;

/**
 * C = op(A)·op(B) (+ C) (+ bias, then f): one TILE×TILE block of C per workgroup. Each step
 * stages a 16-deep slice of op(A) and op(B) in workgroup memory, loaded along whichever axis
 * is contiguous in the stored layout — so a transposed operand is read transposed, never
 * copied — and every thread accumulates a 4×4 register tile from it. Rows of each operand are
 * ld apart, and a batch of products (Backend.gemmBatched) is the y axis of the dispatch:
 * workgroup row wid.y is row tile wid.y mod rowTiles of product first + wid.y / rowTiles,
 * whose matrices start at o·outer + i·inner for its index (o, i) in the outer × inner batch.
 */
export const gemm: Kernel = {
  name: 'gemm',
  arrays: [{ name: 'a' }, { name: 'b' }, { name: 'c', write: true }, { name: 'bias' }],
  scalars: [
    ['m', 'u32'],
    ['n', 'u32'],
    ['k', 'u32'],
    ['lda', 'u32'],
    ['ldb', 'u32'],
    ['ldc', 'u32'],
    ['aOuter', 'u32'],
    ['aInner', 'u32'],
    ['bOuter', 'u32'],
    ['bInner', 'u32'],
    ['cOuter', 'u32'],
    ['cInner', 'u32'],
    ['inner', 'u32'],
    ['first', 'u32'],
    ['rowTiles', 'u32'],
  ],
  workgroup: [16, 16],
  helpers: /* wgsl */ `
var<workgroup> As: array<f32, 1024>;
var<workgroup> Bs: array<f32, 1024>;
var<private> aAt: u32;
var<private> bAt: u32;
fn opA(i: u32, p: u32) -> f32 {
  if (i >= u.m || p >= u.k) { return 0.0; }
  if (TA) { return ld_a(aAt + p * u.lda + i); }
  return ld_a(aAt + i * u.lda + p);
}
fn opB(p: u32, j: u32) -> f32 {
  if (j >= u.n || p >= u.k) { return 0.0; }
  if (TB) { return ld_b(bAt + j * u.ldb + p); }
  return ld_b(bAt + p * u.ldb + j);
}`,
  body: /* wgsl */ `
  let product = u.first + wid.y / u.rowTiles;
  let po = product / u.inner;
  let pi = product % u.inner;
  aAt = po * u.aOuter + pi * u.aInner;
  bAt = po * u.bOuter + pi * u.bInner;
  let c0 = po * u.cOuter + pi * u.cInner;
  let row0 = (wid.y % u.rowTiles) * 64u;
  let col0 = wid.x * 64u;
  let t = lid.y * 16u + lid.x;
  var acc: array<vec4f, 4>;
  for (var p0 = 0u; p0 < u.k; p0 += 16u) {
    for (var l = 0u; l < 4u; l++) {
      let e = t + l * 256u;
      // A's tile as [p][i]: along p where A is stored m×k, along i where it is stored k×m
      if (TA) { As[(e / 64u) * 64u + e % 64u] = opA(row0 + e % 64u, p0 + e / 64u); }
      else { As[(e % 16u) * 64u + e / 16u] = opA(row0 + e / 16u, p0 + e % 16u); }
      if (TB) { Bs[(e % 16u) * 64u + e / 16u] = opB(p0 + e % 16u, col0 + e / 16u); }
      else { Bs[(e / 64u) * 64u + e % 64u] = opB(p0 + e / 64u, col0 + e % 64u); }
    }
    workgroupBarrier();
    for (var p = 0u; p < 16u; p++) {
      let bo = p * 64u + lid.x * 4u;
      let bv = vec4f(Bs[bo], Bs[bo + 1u], Bs[bo + 2u], Bs[bo + 3u]);
      let ao = p * 64u + lid.y * 4u;
      acc[0] += As[ao] * bv;
      acc[1] += As[ao + 1u] * bv;
      acc[2] += As[ao + 2u] * bv;
      acc[3] += As[ao + 3u] * bv;
    }
    workgroupBarrier();
  }
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + lid.y * 4u + r;
    if (i >= u.m) { break; }
    for (var c = 0u; c < 4u; c++) {
      let j = col0 + lid.x * 4u + c;
      if (j >= u.n) { break; }
      let at = c0 + i * u.ldc + j;
      var v = acc[r][c];
      if (ACC) { v += ld_c(at); }
      if (BIAS) { v = apply(OP, v + ld_bias(j)); }
      st_c(at, v);
    }
  }`,
};

export const unary: Kernel = {
  name: 'unary',
  arrays: [{ name: 'x' }, { name: 'y', write: true }],
  scalars: [['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}\n  st_y(tid, apply(OP, ld_x(tid)));`,
};

export const unaryBackward: Kernel = {
  name: 'unaryBackward',
  arrays: [{ name: 'x' }, { name: 'y' }, { name: 'dy' }, { name: 'dx', write: true }],
  scalars: [['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}
  let g = ld_dy(tid) * derivative(OP, ld_x(tid), ld_y(tid));
  if (ACC) { st_dx(tid, ld_dx(tid) + g); } else { st_dx(tid, g); }`,
};

export const addRowVector: Kernel = {
  name: 'addRowVector',
  arrays: [{ name: 'x' }, { name: 'v' }, { name: 'out', write: true }],
  scalars: [
    ['n', 'u32'],
    ['cols', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}\n  st_out(tid, apply(OP, ld_x(tid) + ld_v(tid % u.cols)));`,
};

/** out[j] (+)= Σ_r x[r, j]: a thread per column. */
export const sumRows: Kernel = {
  name: 'sumRows',
  arrays: [{ name: 'x' }, { name: 'out', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['cols', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.cols')}
  var s: f32 = 0.0;
  for (var r = 0u; r < u.rows; r++) { s += ld_x(r * u.cols + tid); }
  if (ACC) { s += ld_out(tid); }
  st_out(tid, s);`,
};

export const axpy: Kernel = {
  name: 'axpy',
  arrays: [{ name: 'x' }, { name: 'y', write: true }],
  scalars: [
    ['n', 'u32'],
    ['alpha', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}\n  st_y(tid, ld_y(tid) + u.alpha * ld_x(tid));`,
};

export const fill: Kernel = {
  name: 'fill',
  arrays: [{ name: 'x', write: true }],
  scalars: [
    ['n', 'u32'],
    ['value', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}\n  st_x(tid, u.value);`,
};

export const copyRows: Kernel = {
  name: 'copyRows',
  arrays: [{ name: 'src' }, { name: 'dst', write: true }],
  scalars: [
    ['n', 'u32'],
    ['cols', 'u32'],
    ['lds', 'u32'],
    ['ldd', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}
  let r = tid / u.cols;
  let j = tid % u.cols;
  st_dst(r * u.ldd + j, ld_src(r * u.lds + j));`,
};

/** Backend.adam, in its arithmetic order. */
export const adam: Kernel = {
  name: 'adam',
  arrays: [{ name: 'p', write: true }, { name: 'g' }, { name: 'm', write: true }, { name: 'v', write: true }],
  scalars: [
    ['n', 'u32'],
    ['b1', 'f32'],
    ['a1', 'f32'],
    ['b2', 'f32'],
    ['a2', 'f32'],
    ['step', 'f32'],
    ['epsHat', 'f32'],
    ['l2', 'f32'],
    ['shrink', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}
  let p = ld_p(tid) * u.shrink;
  let g = ld_g(tid) + u.l2 * p;
  let m = u.b1 * ld_m(tid) + u.a1 * g;
  let v = u.b2 * ld_v(tid) + u.a2 * g * g;
  st_m(tid, m);
  st_v(tid, v);
  st_p(tid, p - (u.step * m) / (sqrt(v) + u.epsHat));`,
};

const WINDOW: Kernel['scalars'] = [
  ['C', 'u32'],
  ['H', 'u32'],
  ['W', 'u32'],
  ['kh', 'u32'],
  ['kw', 'u32'],
  ['sh', 'u32'],
  ['sw', 'u32'],
  ['ph', 'u32'],
  ['pw', 'u32'],
  ['Ho', 'u32'],
  ['Wo', 'u32'],
  ['count', 'u32'],
  ['ld', 'u32'],
];

/** col[(c,i,j), s·P + (oh,ow)] = x[s, c, oh·sh − ph + i, ow·sw − pw + j] (0 in the padding): a thread per entry. */
export const im2col: Kernel = {
  name: 'im2col',
  arrays: [{ name: 'x' }, { name: 'col', write: true }],
  scalars: [...WINDOW, ['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}
  let P = u.Ho * u.Wo;
  let cols = u.count * P;
  let row = tid / cols;
  let q = tid % cols;
  let s = q / P;
  let oh = (q % P) / u.Wo;
  let ow = q % u.Wo;
  let c = row / (u.kh * u.kw);
  let i = (row / u.kw) % u.kh;
  let j = row % u.kw;
  let h = i32(oh * u.sh + i) - i32(u.ph);
  let w = i32(ow * u.sw + j) - i32(u.pw);
  var v: f32 = 0.0;
  if (h >= 0 && h < i32(u.H) && w >= 0 && w < i32(u.W)) { v = ld_x(((s * u.C + c) * u.H + u32(h)) * u.W + u32(w)); }
  st_col(row * u.ld + q, v);`,
};

/** dx[s, c, h, w] += Σ of the column entries im2col copied from there: a thread per element of dx (a gather, no atomics). */
export const col2im: Kernel = {
  name: 'col2im',
  arrays: [{ name: 'col' }, { name: 'dx', write: true }],
  scalars: [...WINDOW, ['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}
  let P = u.Ho * u.Wo;
  let w = tid % u.W;
  let h = (tid / u.W) % u.H;
  let c = (tid / (u.W * u.H)) % u.C;
  let s = tid / (u.W * u.H * u.C);
  var sum: f32 = 0.0;
  for (var i = 0u; i < u.kh; i++) {
    let hh = i32(h + u.ph) - i32(i);
    if (hh < 0 || hh % i32(u.sh) != 0) { continue; }
    let oh = u32(hh) / u.sh;
    if (oh >= u.Ho) { continue; }
    for (var j = 0u; j < u.kw; j++) {
      let ww = i32(w + u.pw) - i32(j);
      if (ww < 0 || ww % i32(u.sw) != 0) { continue; }
      let ow = u32(ww) / u.sw;
      if (ow >= u.Wo) { continue; }
      sum += ld_col(((c * u.kh + i) * u.kw + j) * u.ld + s * P + oh * u.Wo + ow);
    }
  }
  st_dx(tid, ld_dx(tid) + sum);`,
};

/** Backend.maxPool: a thread per output; the first maximum wins, a NaN takes over. */
export const maxPool: Kernel = {
  name: 'maxPool',
  arrays: [{ name: 'x' }, { name: 'y', write: true }, { name: 'arg', write: true }],
  scalars: [
    ['H', 'u32'],
    ['W', 'u32'],
    ['k', 'u32'],
    ['s', 'u32'],
    ['Ho', 'u32'],
    ['Wo', 'u32'],
    ['n', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}
  let pl = tid / (u.Ho * u.Wo);
  let oh = (tid / u.Wo) % u.Ho;
  let ow = tid % u.Wo;
  let top = pl * u.H * u.W + oh * u.s * u.W + ow * u.s;
  var best = -inf();
  var at = top;
  var nan = false;
  for (var i = 0u; i < u.k && !nan; i++) {
    for (var j = 0u; j < u.k; j++) {
      let q = top + i * u.W + j;
      let v = ld_x(q);
      if (isNan(v)) { best = v; at = q; nan = true; break; }
      if (v > best) { best = v; at = q; }
    }
  }
  st_y(tid, best);
  st_arg(tid, f32(at));`,
};

const POOL: Kernel['scalars'] = [
  ['H', 'u32'],
  ['W', 'u32'],
  ['kh', 'u32'],
  ['kw', 'u32'],
  ['sh', 'u32'],
  ['sw', 'u32'],
  ['Ho', 'u32'],
  ['Wo', 'u32'],
  ['n', 'u32'],
];

/** Backend.avgPool: a thread per output, the window's terms added in row-major order. */
export const avgPool: Kernel = {
  name: 'avgPool',
  arrays: [{ name: 'x' }, { name: 'y', write: true }],
  scalars: POOL,
  workgroup: [WG],
  body: `${guard('u.n')}
  let pl = tid / (u.Ho * u.Wo);
  let top = pl * u.H * u.W + ((tid / u.Wo) % u.Ho) * u.sh * u.W + (tid % u.Wo) * u.sw;
  let inv = 1.0 / f32(u.kh * u.kw);
  var s: f32 = 0.0;
  for (var i = 0u; i < u.kh; i++) { for (var j = 0u; j < u.kw; j++) { s += ld_x(top + i * u.W + j) * inv; } }
  st_y(tid, s);`,
};

/** Backend.avgPoolBackward: a thread per element of dx, gathering the windows that cover it. */
export const avgPoolBackward: Kernel = {
  name: 'avgPoolBackward',
  arrays: [{ name: 'dy' }, { name: 'dx', write: true }],
  scalars: POOL,
  workgroup: [WG],
  body: `${guard('u.n')}
  let w = tid % u.W;
  let h = (tid / u.W) % u.H;
  let pl = tid / (u.W * u.H);
  let inv = 1.0 / f32(u.kh * u.kw);
  var s: f32 = 0.0;
  // windows oh with oh·sh ≤ h < oh·sh + kh, and likewise ow
  let oh0 = select(0u, (h + u.sh - u.kh) / u.sh, h + 1u > u.kh);
  let ow0 = select(0u, (w + u.sw - u.kw) / u.sw, w + 1u > u.kw);
  for (var oh = oh0; oh < u.Ho && oh * u.sh <= h; oh++) {
    for (var ow = ow0; ow < u.Wo && ow * u.sw <= w; ow++) { s += ld_dy((pl * u.Ho + oh) * u.Wo + ow) * inv; }
  }
  st_dx(tid, ld_dx(tid) + s);`,
};

/** dx[arg[i]] += dy[i], by compare-and-swap (windows may overlap). */
export const scatterAdd: Kernel = {
  name: 'scatterAdd',
  arrays: [{ name: 'dy' }, { name: 'arg' }, { name: 'dx', write: true, atomic: true }],
  scalars: [['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}\n  add_dx(u32(ld_arg(tid)), ld_dy(tid));`,
};

/** y[b, a, :] = f(x[a, b, :] (+ bias[a])). */
export const swapAxes: Kernel = {
  name: 'swapAxes',
  arrays: [{ name: 'x' }, { name: 'bias' }, { name: 'y', write: true }],
  scalars: [
    ['A', 'u32'],
    ['B', 'u32'],
    ['P', 'u32'],
    ['n', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}
  let p = tid % u.P;
  let b = (tid / u.P) % u.B;
  let a = tid / (u.P * u.B);
  var v = ld_x(tid);
  if (BIAS) { v += ld_bias(a); }
  st_y((b * u.A + a) * u.P + p, apply(OP, v));`,
};

export const softmax: Kernel = {
  name: 'softmax',
  arrays: [{ name: 'x' }, { name: 'y', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['n', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.n;
  var mx = -inf();
  for (var j = 0u; j < u.n; j++) { mx = max(mx, ld_x(o + j)); }
  var s: f32 = 0.0;
  for (var j = 0u; j < u.n; j++) { let e = expf(ld_x(o + j) - mx); st_y(o + j, e); s += e; }
  for (var j = 0u; j < u.n; j++) { st_y(o + j, ld_y(o + j) / s); }`,
};

export const softmaxBackward: Kernel = {
  name: 'softmaxBackward',
  arrays: [{ name: 'y' }, { name: 'dy' }, { name: 'dx', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['n', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.n;
  var s: f32 = 0.0;
  for (var j = 0u; j < u.n; j++) { s += ld_dy(o + j) * ld_y(o + j); }
  for (var j = 0u; j < u.n; j++) { st_dx(o + j, ld_y(o + j) * (ld_dy(o + j) - s)); }`,
};

/** Backend.lossGrad, a thread per row; KIND 0 mse, 1 bce, 2 softmax cross-entropy, 3 token cross-entropy (t: one id per row). */
export const lossGrad: Kernel = {
  name: 'lossGrad',
  arrays: [{ name: 'yhat' }, { name: 't' }, { name: 'grad', write: true }, { name: 'rowLoss', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['cols', 'u32'],
  ],
  workgroup: [WG],
  helpers: /* wgsl */ `
fn logSumExp(o: u32) -> f32 {
  var mx = -inf();
  for (var j = 0u; j < u.cols; j++) { mx = max(mx, ld_yhat(o + j)); }
  var se: f32 = 0.0;
  for (var j = 0u; j < u.cols; j++) { se += expf(ld_yhat(o + j) - mx); }
  return mx + log(se);
}`,
  body: `${guard('u.rows')}
  let o = tid * u.cols;
  let n = f32(u.rows * u.cols);
  var s: f32 = 0.0;
  if (KIND == 0u) {
    for (var j = 0u; j < u.cols; j++) { let d = ld_yhat(o + j) - ld_t(o + j); s += d * d; st_grad(o + j, 2.0 * d / n); }
    st_rowLoss(tid, s / n);
  } else if (KIND == 1u) {
    for (var j = 0u; j < u.cols; j++) {
      let z = ld_yhat(o + j);
      let t = ld_t(o + j);
      s += max(z, 0.0) - z * t + log1pf(expf(-abs(z)));
      st_grad(o + j, (sigmoidf(z) - t) / n);
    }
    st_rowLoss(tid, s / n);
  } else if (KIND == 3u) {
    let lse = logSumExp(o);
    let id = u32(ld_t(tid));
    let rows = f32(u.rows);
    for (var j = 0u; j < u.cols; j++) { st_grad(o + j, (expf(ld_yhat(o + j) - lse) - select(0.0, 1.0, j == id)) / rows); }
    st_rowLoss(tid, (lse - ld_yhat(o + id)) / rows);
  } else {
    let lse = logSumExp(o);
    var tsum: f32 = 0.0;
    for (var j = 0u; j < u.cols; j++) { let t = ld_t(o + j); tsum += t; if (t != 0.0) { s -= t * (ld_yhat(o + j) - lse); } }
    let rows = f32(u.rows);
    for (var j = 0u; j < u.cols; j++) { st_grad(o + j, (expf(ld_yhat(o + j) - lse) * tsum - ld_t(o + j)) / rows); }
    st_rowLoss(tid, s / rows);
  }`,
};

export const argmaxRows: Kernel = {
  name: 'argmaxRows',
  arrays: [{ name: 'y' }, { name: 'out', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['cols', 'u32'],
    ['threshold', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.cols;
  if (u.cols == 1u) { st_out(tid, select(0.0, 1.0, ld_y(o) > u.threshold)); return; }
  var best = 0u;
  for (var c = 1u; c < u.cols; c++) { if (ld_y(o + c) > ld_y(o + best)) { best = c; } }
  st_out(tid, f32(best));`,
};

/** flag[0] = 0 where some x[i] is NaN or ±∞ (every such thread writes the same 0). */
export const markNonFinite: Kernel = {
  name: 'markNonFinite',
  arrays: [{ name: 'x' }, { name: 'flag', write: true }],
  scalars: [['n', 'u32']],
  workgroup: [WG],
  body: `${guard('u.n')}\n  if (!isFinite(ld_x(tid))) { st_flag(0u, 0.0); }`,
};
