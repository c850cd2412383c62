// The elementwise step of the gated recurrent cells (RecurrentKernels in
// src/tensor/recurrent-kernels.ts, the reference): all the gate math of one step in one pass
// over its rows, four units at a time. The tail of a row (h not a multiple of 4) runs the same
// lane formulas on splatted scalars, so every unit gets the same rounding. Pointers are byte
// addresses; rows are `h` units, gate blocks side by side in PyTorch's order.
import { ld, st, ONE, sig, th, dsig, dtanh } from './lanes';

// @ts-ignore: decorator
@inline function lstmLanes(z: usize, cp: usize, c: usize, ho: usize, H: usize, q: usize, one: bool): void {
  const i = sig(ld(z + q, one)),
    f = sig(ld(z + H + q, one)),
    g = th(ld(z + 2 * H + q, one)),
    o = sig(ld(z + 3 * H + q, one));
  st(z + q, i, one);
  st(z + H + q, f, one);
  st(z + 2 * H + q, g, one);
  st(z + 3 * H + q, o, one);
  const cn = f32x4.add(f32x4.mul(f, ld(cp + q, one)), f32x4.mul(i, g));
  st(c + q, cn, one);
  st(ho + q, f32x4.mul(o, th(cn)), one);
}

export function lstmCell(rows: i32, h: i32, z: usize, cPrev: usize, c: usize, hOut: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const zr = z + 4 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) lstmLanes(zr, cPrev + s, c + s, hOut + s, H, <usize>j << 2, false);
    for (; j < h; j++) lstmLanes(zr, cPrev + s, c + s, hOut + s, H, <usize>j << 2, true);
  }
}

// @ts-ignore: decorator
@inline function lstmBackLanes(gt: usize, cp: usize, c: usize, dh: usize, dc: usize, dz: usize, H: usize, q: usize, one: bool): void {
  const i = ld(gt + q, one),
    f = ld(gt + H + q, one),
    g = ld(gt + 2 * H + q, one),
    o = ld(gt + 3 * H + q, one);
  const tc = th(ld(c + q, one)),
    d = ld(dh + q, one);
  const dct = f32x4.add(ld(dc + q, one), f32x4.mul(f32x4.mul(d, o), dtanh(tc)));
  st(dz + q, f32x4.mul(f32x4.mul(dct, g), dsig(i)), one);
  st(dz + H + q, f32x4.mul(f32x4.mul(dct, ld(cp + q, one)), dsig(f)), one);
  st(dz + 2 * H + q, f32x4.mul(f32x4.mul(dct, i), dtanh(g)), one);
  st(dz + 3 * H + q, f32x4.mul(f32x4.mul(d, tc), dsig(o)), one);
  st(dc + q, f32x4.mul(dct, f), one);
}

export function lstmCellBackward(rows: i32, h: i32, gates: usize, cPrev: usize, c: usize, dh: usize, dc: usize, dz: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const g = gates + 4 * H * b,
      z = dz + 4 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) lstmBackLanes(g, cPrev + s, c + s, dh + s, dc + s, z, H, <usize>j << 2, false);
    for (; j < h; j++) lstmBackLanes(g, cPrev + s, c + s, dh + s, dc + s, z, H, <usize>j << 2, true);
  }
}

// @ts-ignore: decorator
@inline function gruLanes(xg: usize, hg: usize, hp: usize, ho: usize, H: usize, q: usize, one: bool): void {
  const r = sig(f32x4.add(ld(xg + q, one), ld(hg + q, one))),
    z = sig(f32x4.add(ld(xg + H + q, one), ld(hg + H + q, one))),
    n = th(f32x4.add(ld(xg + 2 * H + q, one), f32x4.mul(r, ld(hg + 2 * H + q, one))));
  st(xg + q, r, one);
  st(xg + H + q, z, one);
  st(xg + 2 * H + q, n, one);
  // (1 − z)·n + z·h = n + z·(h − n)
  st(ho + q, f32x4.add(n, f32x4.mul(z, f32x4.sub(ld(hp + q, one), n))), one);
}

export function gruCell(rows: i32, h: i32, xg: usize, hg: usize, hPrev: usize, hOut: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const x = xg + 3 * H * b,
      y = hg + 3 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) gruLanes(x, y, hPrev + s, hOut + s, H, <usize>j << 2, false);
    for (; j < h; j++) gruLanes(x, y, hPrev + s, hOut + s, H, <usize>j << 2, true);
  }
}

// @ts-ignore: decorator
@inline function gruBackLanes(gt: usize, hg: usize, hp: usize, dh: usize, dxg: usize, dhg: usize, dhp: usize, H: usize, q: usize, one: bool): void {
  const r = ld(gt + q, one),
    z = ld(gt + H + q, one),
    n = ld(gt + 2 * H + q, one),
    d = ld(dh + q, one);
  const da = f32x4.mul(f32x4.mul(d, f32x4.sub(ONE, z)), dtanh(n));
  const dr = f32x4.mul(f32x4.mul(da, ld(hg + 2 * H + q, one)), dsig(r));
  const dz = f32x4.mul(f32x4.mul(d, f32x4.sub(ld(hp + q, one), n)), dsig(z));
  st(dxg + q, dr, one);
  st(dhg + q, dr, one);
  st(dxg + H + q, dz, one);
  st(dhg + H + q, dz, one);
  st(dxg + 2 * H + q, da, one);
  st(dhg + 2 * H + q, f32x4.mul(da, r), one);
  st(dhp + q, f32x4.mul(d, z), one);
}

export function gruCellBackward(rows: i32, h: i32, gates: usize, hg: usize, hPrev: usize, dh: usize, dxg: usize, dhg: usize, dhPrev: usize): void {
  const h4 = h & ~3,
    H = <usize>h << 2;
  for (let b = 0; b < rows; b++) {
    const g = gates + 3 * H * b,
      y = hg + 3 * H * b,
      dx = dxg + 3 * H * b,
      dy = dhg + 3 * H * b,
      s = H * b;
    let j = 0;
    for (; j < h4; j += 4) gruBackLanes(g, y, hPrev + s, dh + s, dx, dy, dhPrev + s, H, <usize>j << 2, false);
    for (; j < h; j++) gruBackLanes(g, y, hPrev + s, dh + s, dx, dy, dhPrev + s, H, <usize>j << 2, true);
  }
}
