import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { Data } from '../tensor/tensor.js';
import type { Window } from '../tensor/window.js';
import { isBatch, printShape } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { ints, word } from './op.js';
import type { Attrs } from './op.js';

/**
 * The sliding window of Conv, ConvTranspose and the pools over the spatial axes of [N, C, …]
 * (one or two of them; a 1-d window is a 2-d one of height 1): kernel, strides, dilations and
 * pads per side (ONNX's pads = [begin…, end…]), or auto_pad. Its im2col writes each sample as a
 * matrix with a row per (channel, tap) and a column per output position, so a convolution is one
 * product; col2im is its adjoint. The backend's kernels take the symmetric, undilated windows,
 * a loop here the rest.
 */
export interface Geometry {
  readonly C: number;
  readonly H: number;
  readonly W: number;
  readonly kh: number;
  readonly kw: number;
  readonly sh: number;
  readonly sw: number;
  readonly dh: number;
  readonly dw: number;
  /** Padding above, left, below, right. */
  readonly pt: number;
  readonly pl: number;
  readonly pb: number;
  readonly pr: number;
  readonly Ho: number;
  readonly Wo: number;
}

/** The attributes every windowed operator shares. */
export const WINDOW_ATTRS = {
  kernel_shape: { kind: 'ints', default: [] },
  strides: { kind: 'ints', default: [] },
  pads: { kind: 'ints', default: [] },
  dilations: { kind: 'ints', default: [] },
  auto_pad: { kind: 'string', default: 'NOTSET' },
} as const;

/** Output size along one axis: ⌊(n + pads − d(k−1) − 1)/s⌋ + 1, or with ceil_mode the ceiling, less a last window that starts in the end padding. */
export function outSize(n: number, k: number, s: number, d: number, p0: number, p1: number, ceil: boolean): number {
  const span = n + p0 + p1 - d * (k - 1) - 1;
  let o = (ceil ? Math.ceil(span / s) : Math.floor(span / s)) + 1;
  if (ceil && (o - 1) * s >= n + p0) o--;
  return o;
}

/**
 * The geometry of a window over spatial sizes `spatial` (1 or 2 of them) of C channels, from the
 * attributes (and the kernel's size when the attributes do not give it).
 */
export function geometry(a: Attrs, C: number, spatial: readonly number[], kernel: readonly number[] | undefined, where: string, ceil = false): Geometry {
  const r = spatial.length;
  if (r !== 1 && r !== 2) throw new ShapeError(`${where}: ${r}-d windows are not read (1-d and 2-d are)`);
  const k = ints(a, 'kernel_shape').length ? ints(a, 'kernel_shape') : kernel;
  if (!k || k.length !== r) throw new ShapeError(`${where}: kernel_shape [${k?.join(',') ?? ''}] does not fit ${r} spatial axes`);
  const s = ints(a, 'strides').length ? ints(a, 'strides') : k.map(() => 1);
  const d = ints(a, 'dilations').length ? ints(a, 'dilations') : k.map(() => 1);
  let p = ints(a, 'pads').length ? ints(a, 'pads') : k.flatMap(() => [0, 0]);
  const auto = word(a, 'auto_pad');
  if (auto === 'VALID') p = k.flatMap(() => [0, 0]);
  else if (auto === 'SAME_UPPER' || auto === 'SAME_LOWER') {
    // total padding so that the output is ⌈n/s⌉; the odd one out goes at the end (UPPER) or the beginning (LOWER)
    const total = spatial.map((n, i) => Math.max(0, (Math.ceil(n / s[i]!) - 1) * s[i]! + d[i]! * (k[i]! - 1) + 1 - n));
    const small = total.map((t) => Math.floor(t / 2));
    const big = total.map((t, i) => t - small[i]!);
    p = auto === 'SAME_UPPER' ? [...small, ...big] : [...big, ...small];
  } else if (auto !== 'NOTSET') throw new ShapeError(`${where}: auto_pad ${auto} is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID`);
  if (s.length !== r || d.length !== r || p.length !== 2 * r) throw new ShapeError(`${where}: strides, dilations or pads do not fit ${r} spatial axes`);
  if ([...k, ...s, ...d].some((v) => !(Number.isInteger(v) && v >= 1)) || p.some((v) => !(Number.isInteger(v) && v >= 0)))
    throw new ShapeError(`${where}: kernel, strides and dilations must be positive and pads non-negative`);
  const [H, W] = r === 2 ? [spatial[0]!, spatial[1]!] : [1, spatial[0]!];
  const g = {
    C,
    H,
    W,
    kh: r === 2 ? k[0]! : 1,
    kw: k[r - 1]!,
    sh: r === 2 ? s[0]! : 1,
    sw: s[r - 1]!,
    dh: r === 2 ? d[0]! : 1,
    dw: d[r - 1]!,
    pt: r === 2 ? p[0]! : 0,
    pl: p[r - 1]!,
    pb: r === 2 ? p[2]! : 0,
    pr: p[2 * r - 1]!,
  };
  const Ho = outSize(H, g.kh, g.sh, g.dh, g.pt, g.pb, ceil),
    Wo = outSize(W, g.kw, g.sw, g.dw, g.pl, g.pr, ceil);
  if (!(Ho >= 1 && Wo >= 1)) throw new ShapeError(`${where}: a ${g.kh}×${g.kw} window does not fit an input of ${H}×${W} (pads ${p.join(',')})`);
  return { ...g, Ho, Wo };
}

/** The spatial sizes of [N, C, …] as numbers (they never depend on the batch). */
export function spatialOf(x: SymShape, where: string): number[] {
  if (x.length < 3) throw new ShapeError(`${where}: expects [N, C, spatial…], got ${printShape(x)}`);
  return x.slice(2).map((d: Dim) => {
    if (isBatch(d)) throw new ShapeError(`${where}: a spatial size depends on the batch`);
    return d;
  });
}

/** The output's spatial sizes in the input's layout (1-d: [Wo]). */
export const outSpatial = (g: Geometry, rank: number): number[] => (rank === 1 ? [g.Wo] : [g.Ho, g.Wo]);

/** The backend's window, when this geometry is one it takes (symmetric padding, no dilation). */
function plain(g: Geometry): Window | undefined {
  if (g.dh !== 1 || g.dw !== 1 || g.pt !== g.pb || g.pl !== g.pr) return undefined;
  return { C: g.C, H: g.H, W: g.W, kh: g.kh, kw: g.kw, sh: g.sh, sw: g.sw, ph: g.pt, pw: g.pl, Ho: g.Ho, Wo: g.Wo };
}

/** For every (row r of the column matrix, output position q): the input offset it reads within the sample, or −1 (padding). */
function forEachTap(g: Geometry, f: (r: number, q: number, src: number) => void): void {
  const { C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, Ho, Wo } = g;
  for (let c = 0; c < C; c++) {
    for (let i = 0; i < kh; i++) {
      for (let j = 0; j < kw; j++) {
        const r = (c * kh + i) * kw + j;
        for (let oh = 0; oh < Ho; oh++) {
          const h = oh * sh - pt + i * dh;
          for (let ow = 0; ow < Wo; ow++) {
            const w = ow * sw - pl + j * dw;
            f(r, oh * Wo + ow, h < 0 || h >= H || w < 0 || w >= W ? -1 : (c * H + h) * W + w);
          }
        }
      }
    }
  }
}

/** col [C·kh·kw, Ho·Wo] = the windows of one sample x[xOff …]. */
export function im2colAny(g: Geometry, x: Data, xOff: number, col: Data): void {
  const w = plain(g);
  const P = g.Ho * g.Wo;
  if (w) return backend().im2col(w, x, xOff, 1, col, P);
  forEachTap(g, (r, q, s) => (col[r * P + q] = s < 0 ? 0 : x[xOff + s]!));
}

/** dx[xOff …] += the fold of col (im2colAny's adjoint). */
export function col2imAny(g: Geometry, col: Data, dx: Data, xOff: number): void {
  const w = plain(g);
  const P = g.Ho * g.Wo;
  if (w) return backend().col2im(w, col, P, 1, dx, xOff);
  forEachTap(g, (r, q, s) => {
    if (s >= 0) dx[xOff + s] = dx[xOff + s]! + col[r * P + q]!;
  });
}

/** For pooling: calls f(o, taps) per output position of each of `planes` planes, taps the in-image input offsets of its window and `total` its size counting padding (clipped to the padded input, as PyTorch counts). */
export function forEachWindow(g: Geometry, planes: number, f: (o: number, taps: readonly number[], padded: number) => void): void {
  const { H, W, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, Ho, Wo } = g;
  const taps: number[] = [];
  for (let pl0 = 0; pl0 < planes; pl0++) {
    for (let oh = 0; oh < Ho; oh++) {
      for (let ow = 0; ow < Wo; ow++) {
        taps.length = 0;
        const h0 = oh * sh - pt,
          w0 = ow * sw - pl;
        for (let i = 0; i < kh; i++) {
          const h = h0 + i * dh;
          if (h < 0 || h >= H) continue;
          for (let j = 0; j < kw; j++) {
            const w = w0 + j * dw;
            if (w >= 0 && w < W) taps.push((pl0 * H + h) * W + w);
          }
        }
        const padded = (Math.min(h0 + (kh - 1) * dh + 1, H + pb) - h0) * (Math.min(w0 + (kw - 1) * dw + 1, W + pr) - w0);
        f((pl0 * Ho + oh) * Wo + ow, taps, padded);
      }
    }
  }
}

export { plain as backendWindow };
