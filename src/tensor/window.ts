import { ShapeError } from '../errors.js';
import type { Data } from './tensor.js';

/**
 * The geometry of a 2-d sliding window over a [C,H,W] sample: kernel kh×kw, stride sh×sw,
 * zero padding ph×pw. A 1-d window over [C,L] is the case H = 1, kh = 1, sh = 1, ph = 0.
 */
export interface Window {
  readonly C: number;
  readonly H: number;
  readonly W: number;
  readonly kh: number;
  readonly kw: number;
  readonly sh: number;
  readonly sw: number;
  readonly ph: number;
  readonly pw: number;
  /** Output height ⌊(H + 2ph − kh)/sh⌋ + 1. */
  readonly Ho: number;
  /** Output width ⌊(W + 2pw − kw)/sw⌋ + 1. */
  readonly Wo: number;
}

/** A window's geometry with its output size; a ShapeError (naming `where`) when the kernel does not fit. */
export function makeWindow(where: string, C: number, H: number, W: number, kh: number, kw: number, sh: number, sw: number, ph: number, pw: number): Window {
  const Ho = Math.floor((H + 2 * ph - kh) / sh) + 1;
  const Wo = Math.floor((W + 2 * pw - kw) / sw) + 1;
  if (!(Ho >= 1 && Wo >= 1)) {
    throw new ShapeError(`${where}: a ${kh}×${kw} window (padding ${ph}×${pw}) does not fit an input of ${H}×${W}`);
  }
  return { C, H, W, kh, kw, sh, sw, ph, pw, Ho, Wo };
}

/** The output columns [lo, hi) whose input column ow·sw − pw + j lies inside [0, W). */
function validColumns(g: Window, j: number): [number, number] {
  const lo = Math.min(g.Wo, Math.max(0, Math.ceil((g.pw - j) / g.sw)));
  const hi = Math.min(g.Wo, Math.floor((g.W - 1 + g.pw - j) / g.sw) + 1);
  return [lo, Math.max(lo, hi)];
}

/**
 * The walk that im2col and its adjoint share: for every row (c,i,j) of the column matrix and
 * every output row oh, `visit(r, src, lo, hi)` with r the column-matrix offset of that output
 * row, src the offset in x of input column −pw + j on input row oh·sh − ph + i (undefined when
 * that row lies in the padding; the offset itself may be negative: column −pw + j is, until
 * lo), and [lo, hi) the output columns that read inside the image.
 */
function forEachWindowRow(
  g: Window,
  xOff: number,
  ld: number,
  colOff: number,
  visit: (r: number, src: number | undefined, lo: number, hi: number) => void,
): void {
  const { C, H, W, kh, kw, sh, ph, pw, Ho, Wo } = g;
  for (let c = 0; c < C; c++) {
    const plane = xOff + c * H * W;
    for (let i = 0; i < kh; i++) {
      for (let j = 0; j < kw; j++) {
        const [lo, hi] = validColumns(g, j);
        let r = ((c * kh + i) * kw + j) * ld + colOff;
        for (let oh = 0; oh < Ho; oh++, r += Wo) {
          const h = oh * sh - ph + i;
          visit(r, h < 0 || h >= H ? undefined : plane + h * W - pw + j, lo, hi);
        }
      }
    }
  }
}

/**
 * im2col: unfolds one sample x[xOff …] ([C,H,W]) into the columns of a matrix with C·kh·kw
 * rows and leading dimension `ld`: row (c,i,j), column colOff + oh·Wo + ow holds
 * x[c, oh·sh − ph + i, ow·sw − pw + j] (0 outside the image). Convolution is then one
 * matrix product W[O, C·kh·kw] · col.
 */
export function im2col(g: Window, x: Data, xOff: number, col: Data, ld: number, colOff: number): void {
  const { sw, Wo } = g;
  forEachWindowRow(g, xOff, ld, colOff, (r, src, lo, hi) => {
    if (src === undefined) {
      col.fill(0, r, r + Wo);
      return;
    }
    if (lo > 0) col.fill(0, r, r + lo);
    for (let ow = lo; ow < hi; ow++) col[r + ow] = x[src + ow * sw]!;
    if (hi < Wo) col.fill(0, r + hi, r + Wo);
  });
}

/**
 * col2im, the adjoint of im2col: adds every entry of the column matrix back onto the input
 * position it was copied from (positions in the padding are dropped). dx[xOff …] += fold(col).
 */
export function col2im(g: Window, col: Data, ld: number, colOff: number, dx: Data, xOff: number): void {
  const { sw } = g;
  forEachWindowRow(g, xOff, ld, colOff, (r, dst, lo, hi) => {
    if (dst === undefined) return;
    for (let ow = lo; ow < hi; ow++) dx[dst + ow * sw]! += col[r + ow]!;
  });
}

/** Max pooling (no padding) of `planes` planes of x, the reference of Backend.maxPool. */
export function maxPool(g: Window, x: Data, planes: number, y: Data, arg: Data): void {
  const { H, W, kh: k, sh: stride, Ho, Wo } = g;
  for (let pl = 0, o = 0; pl < planes; pl++) {
    const xOff = pl * H * W;
    for (let oh = 0; oh < Ho; oh++) {
      const top = xOff + oh * stride * W;
      for (let ow = 0; ow < Wo; ow++, o++) {
        let best = -Infinity,
          at = top + ow * stride;
        // `!(v <= best)`: a larger value or a NaN takes over (a NaN stays, as in PyTorch); ties keep the first
        window: for (let row = top + ow * stride, i = 0; i < k; i++, row += W) {
          for (let q = row; q < row + k; q++) {
            const v = x[q]!;
            if (!(v <= best)) {
              best = v;
              at = q;
              if (v !== v) break window;
            }
          }
        }
        y[o] = best;
        arg[o] = at;
      }
    }
  }
}

/** Every (output, input) offset pair of the windows of g (no padding) over `planes` planes, in row-major order. */
function forEachPoolPair(g: Window, planes: number, f: (o: number, i: number) => void): void {
  const { H, W, kh, kw, sh, sw, Ho, Wo } = g;
  for (let pl = 0; pl < planes; pl++) {
    for (let oh = 0; oh < Ho; oh++) {
      for (let ow = 0; ow < Wo; ow++) {
        const o = (pl * Ho + oh) * Wo + ow;
        for (let i = 0; i < kh; i++) {
          const row = pl * H * W + (oh * sh + i) * W + ow * sw;
          for (let j = 0; j < kw; j++) f(o, row + j);
        }
      }
    }
  }
}

/** Average pooling (no padding), the reference of Backend.avgPool: y = Σ_window x/(kh·kw). */
export function avgPool(g: Window, x: Data, planes: number, y: Data): void {
  const inv = 1 / (g.kh * g.kw);
  y.fill(0, 0, planes * g.Ho * g.Wo);
  forEachPoolPair(g, planes, (o, i) => (y[o]! += x[i]! * inv));
}

/** The adjoint of avgPool: dx += dy/(kh·kw) over each window. */
export function avgPoolBackward(g: Window, dy: Data, planes: number, dx: Data): void {
  const inv = 1 / (g.kh * g.kw);
  forEachPoolPair(g, planes, (o, i) => (dx[i]! += dy[o]! * inv));
}
