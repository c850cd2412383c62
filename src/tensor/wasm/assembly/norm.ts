// Layer and RMS normalisation over rows of d features (Backend.layerNorm and
// layerNormBackward in src/tensor/backend.ts; the reference is src/tensor/norm-kernels.ts),
// four lanes at a time with a scalar tail. Pointers are byte addresses; b, dx, dg, db may be
// 0 (absent).

// @ts-ignore: decorator
@inline function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

export function layerNorm(x: usize, rows: i32, d: i32, g: usize, b: usize, eps: f32, centre: bool, y: usize, xhat: usize, r: usize): void {
  const d4 = d & ~3;
  for (let i = 0; i < rows; i++) {
    const o = (<usize>i * d) << 2;
    let mu: f32 = 0;
    if (centre) {
      let vs = f32x4.splat(0);
      for (let j = 0; j < d4; j += 4) vs = f32x4.add(vs, v128.load(x + o + (<usize>j << 2)));
      mu = hsum(vs);
      for (let j = d4; j < d; j++) mu += load<f32>(x + o + (<usize>j << 2));
      mu /= <f32>d;
    }
    const vmu = f32x4.splat(mu);
    let vq = f32x4.splat(0);
    for (let j = 0; j < d4; j += 4) {
      const c = f32x4.sub(v128.load(x + o + (<usize>j << 2)), vmu);
      vq = f32x4.add(vq, f32x4.mul(c, c));
    }
    let ss = hsum(vq);
    for (let j = d4; j < d; j++) { const c = load<f32>(x + o + (<usize>j << 2)) - mu; ss += c * c; }
    const s: f32 = <f32>1 / Mathf.sqrt(ss / <f32>d + eps);
    store<f32>(r + (<usize>i << 2), s);
    const vsc = f32x4.splat(s);
    for (let j = 0; j < d4; j += 4) {
      const q = <usize>j << 2;
      const h = f32x4.mul(f32x4.sub(v128.load(x + o + q), vmu), vsc);
      v128.store(xhat + o + q, h);
      let v = f32x4.mul(v128.load(g + q), h);
      if (b) v = f32x4.add(v, v128.load(b + q));
      v128.store(y + o + q, v);
    }
    for (let j = d4; j < d; j++) {
      const q = <usize>j << 2;
      const h = (load<f32>(x + o + q) - mu) * s;
      store<f32>(xhat + o + q, h);
      store<f32>(y + o + q, load<f32>(g + q) * h + (b ? load<f32>(b + q) : 0));
    }
  }
}

export function layerNormBackward(dy: usize, xhat: usize, r: usize, rows: i32, d: i32, g: usize, centre: bool, dx: usize, dg: usize, db: usize): void {
  const d4 = d & ~3;
  for (let i = 0; i < rows; i++) {
    const o = (<usize>i * d) << 2;
    if (dg || db) {
      for (let j = 0; j < d4; j += 4) {
        const q = <usize>j << 2;
        const v = v128.load(dy + o + q);
        if (dg) v128.store(dg + q, f32x4.add(v128.load(dg + q), f32x4.mul(v, v128.load(xhat + o + q))));
        if (db) v128.store(db + q, f32x4.add(v128.load(db + q), v));
      }
      for (let j = d4; j < d; j++) {
        const q = <usize>j << 2;
        const v = load<f32>(dy + o + q);
        if (dg) store<f32>(dg + q, load<f32>(dg + q) + v * load<f32>(xhat + o + q));
        if (db) store<f32>(db + q, load<f32>(db + q) + v);
      }
    }
    if (!dx) continue;
    let vg = f32x4.splat(0), vgx = f32x4.splat(0);
    for (let j = 0; j < d4; j += 4) {
      const q = <usize>j << 2;
      const gh = f32x4.mul(v128.load(dy + o + q), v128.load(g + q));
      vg = f32x4.add(vg, gh);
      vgx = f32x4.add(vgx, f32x4.mul(gh, v128.load(xhat + o + q)));
    }
    let mg = hsum(vg), mgx = hsum(vgx);
    for (let j = d4; j < d; j++) {
      const q = <usize>j << 2;
      const gh = load<f32>(dy + o + q) * load<f32>(g + q);
      mg += gh;
      mgx += gh * load<f32>(xhat + o + q);
    }
    mg = centre ? mg / <f32>d : 0;
    mgx /= <f32>d;
    const s = load<f32>(r + (<usize>i << 2));
    const vmg = f32x4.splat(mg), vmgx = f32x4.splat(mgx), vs = f32x4.splat(s);
    for (let j = 0; j < d4; j += 4) {
      const q = <usize>j << 2;
      const gh = f32x4.mul(v128.load(dy + o + q), v128.load(g + q));
      v128.store(dx + o + q, f32x4.mul(f32x4.sub(f32x4.sub(gh, vmg), f32x4.mul(v128.load(xhat + o + q), vmgx)), vs));
    }
    for (let j = d4; j < d; j++) {
      const q = <usize>j << 2;
      store<f32>(dx + o + q, (load<f32>(dy + o + q) * load<f32>(g + q) - mg - load<f32>(xhat + o + q) * mgx) * s);
    }
  }
}
