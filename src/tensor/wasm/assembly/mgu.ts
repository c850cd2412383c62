// The minimal gated unit's elementwise steps (mguGate, mguCell and their pullbacks; the
// reference is src/tensor/recurrent-kernels.ts, the step's order src/nn/recurrent/mgu.ts): the
// gate math of each in one pass over its rows, four units at a time, the tail of a row on
// splatted scalars with the same lane formulas (lanes.ts). Pointers are byte addresses; the
// gates xg / dxg are rows of 2h (f block, then n block), every other array rows of h.
import { ld, st, ONE, sig, th, dsig, dtanh } from './lanes';

// @ts-ignore: decorator
@inline function gateLanes(xg: usize, hgF: usize, hp: usize, fh: usize, q: usize, one: bool): void {
  const f = sig(f32x4.add(ld(xg + q, one), ld(hgF + q, one)));
  st(xg + q, f, one);
  st(fh + q, f32x4.mul(f, ld(hp + q, one)), one);
}

/** f = σ(xg_f + hgF) over xg's f block; fh = f ⊙ hPrev. */
export function mguGate(rows: i32, h: i32, xg: usize, hgF: usize, hPrev: usize, fh: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const x = xg + 2 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) gateLanes(x, hgF + s, hPrev + s, fh + s, <usize>j << 2, false);
    for (; j < h; j++) gateLanes(x, hgF + s, hPrev + s, fh + s, <usize>j << 2, true);
  }
}

// @ts-ignore: decorator
@inline function cellLanes(xg: usize, hgN: usize, hp: usize, ho: usize, H: usize, q: usize, one: bool): void {
  const f = ld(xg + q, one),
    n = th(f32x4.add(ld(xg + H + q, one), ld(hgN + q, one))),
    p = ld(hp + q, one);
  st(xg + H + q, n, one);
  // (1 − f)·h + f·n = h + f·(n − h)
  st(ho + q, f32x4.add(p, f32x4.mul(f, f32x4.sub(n, p))), one);
}

/** n = tanh(xg_n + hgN) over xg's n block; hOut = (1 − f) ⊙ hPrev + f ⊙ n. */
export function mguCell(rows: i32, h: i32, xg: usize, hgN: usize, hPrev: usize, hOut: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const x = xg + 2 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) cellLanes(x, hgN + s, hPrev + s, hOut + s, H, <usize>j << 2, false);
    for (; j < h; j++) cellLanes(x, hgN + s, hPrev + s, hOut + s, H, <usize>j << 2, true);
  }
}

// dh is read before dhPrev is written, lane by lane: dhPrev may be dh (the caller's in-place step)
// @ts-ignore: decorator
@inline function cellBackLanes(gt: usize, hp: usize, dh: usize, dxg: usize, dhp: usize, H: usize, q: usize, one: bool): void {
  const f = ld(gt + q, one),
    n = ld(gt + H + q, one),
    d = ld(dh + q, one);
  st(dxg + H + q, f32x4.mul(f32x4.mul(d, f), dtanh(n)), one);
  st(dxg + q, f32x4.mul(d, f32x4.sub(n, ld(hp + q, one))), one);
  st(dhp + q, f32x4.mul(d, f32x4.sub(ONE, f)), one);
}

/** dxg_n = dh⊙f·(1 − n²), dxg_f = dh ⊙ (n − hPrev) (∂L/∂f, finished by mguGateBackward), dhPrev = dh ⊙ (1 − f). */
export function mguCellBackward(rows: i32, h: i32, gates: usize, hPrev: usize, dh: usize, dxg: usize, dhPrev: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const g = gates + 2 * H * b,
      dx = dxg + 2 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) cellBackLanes(g, hPrev + s, dh + s, dx, dhPrev + s, H, <usize>j << 2, false);
    for (; j < h; j++) cellBackLanes(g, hPrev + s, dh + s, dx, dhPrev + s, H, <usize>j << 2, true);
  }
}

// @ts-ignore: decorator
@inline function gateBackLanes(gt: usize, hp: usize, dfh: usize, dxg: usize, dhp: usize, q: usize, one: bool): void {
  const f = ld(gt + q, one),
    d = ld(dfh + q, one);
  st(dxg + q, f32x4.mul(f32x4.add(ld(dxg + q, one), f32x4.mul(d, ld(hp + q, one))), dsig(f)), one);
  st(dhp + q, f32x4.add(ld(dhp + q, one), f32x4.mul(d, f)), one);
}

/** dxg_f ← (dxg_f + dfh ⊙ hPrev)·f(1 − f), dhPrev += dfh ⊙ f. */
export function mguGateBackward(rows: i32, h: i32, gates: usize, hPrev: usize, dfh: usize, dxg: usize, dhPrev: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const g = gates + 2 * H * b,
      dx = dxg + 2 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) gateBackLanes(g, hPrev + s, dfh + s, dx, dhPrev + s, <usize>j << 2, false);
    for (; j < h; j++) gateBackLanes(g, hPrev + s, dfh + s, dx, dhPrev + s, <usize>j << 2, true);
  }
}
