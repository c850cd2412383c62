import type { Data } from './tensor.js';

/**
 * The reference normalisation kernels (Backend.layerNorm, layerNormBackward): plain loops,
 * any typed array, sums in float64.
 */
export function layerNorm(x: Data, rows: number, d: number, g: Data, b: Data | undefined, eps: number, centre: boolean, y: Data, xhat: Data, r: Data): void {
  for (let i = 0; i < rows; i++) {
    const o = i * d;
    let mu = 0;
    if (centre) {
      for (let j = 0; j < d; j++) mu += x[o + j]!;
      mu /= d;
    }
    let ss = 0;
    for (let j = 0; j < d; j++) ss += (x[o + j]! - mu) ** 2;
    const s = 1 / Math.sqrt(ss / d + eps);
    r[i] = s;
    for (let j = 0; j < d; j++) {
      const h = (x[o + j]! - mu) * s;
      xhat[o + j] = h;
      y[o + j] = g[j]! * h + (b ? b[j]! : 0);
    }
  }
}

export function layerNormBackward(
  dy: Data,
  xhat: Data,
  r: Data,
  rows: number,
  d: number,
  g: Data,
  centre: boolean,
  dx: Data | undefined,
  dg: Data | undefined,
  db: Data | undefined,
): void {
  for (let i = 0; i < rows; i++) {
    const o = i * d;
    if (dg || db) {
      for (let j = 0; j < d; j++) {
        if (dg) dg[j]! += dy[o + j]! * xhat[o + j]!;
        if (db) db[j]! += dy[o + j]!;
      }
    }
    if (!dx) continue;
    let mg = 0,
      mgx = 0;
    for (let j = 0; j < d; j++) {
      const gh = dy[o + j]! * g[j]!;
      mg += gh;
      mgx += gh * xhat[o + j]!;
    }
    mg = centre ? mg / d : 0;
    mgx /= d;
    const s = r[i]!;
    for (let j = 0; j < d; j++) dx[o + j] = (dy[o + j]! * g[j]! - mg - xhat[o + j]! * mgx) * s;
  }
}
