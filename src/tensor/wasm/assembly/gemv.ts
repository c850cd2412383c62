// Matrix-vector products: the gemm shapes with one row or one column of C (batch-1 layers
// and their pullbacks). Packing buys nothing there — every matrix value is used once — so
// they stream the matrix directly, in whichever direction it is stored.

/** y[r·ys] (+)= Σ_p M[r, p]·x[p] for r < rows: one dot product per stored row, four rows at a time. */
export function gemvDot(rows: i32, len: i32, m: usize, ldm: i32, x: usize, y: usize, ys: i32, accumulate: bool): void {
  const rs = <usize>ldm << 2, l4 = len & ~3;
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const m0 = m + <usize>r * rs;
    let s0 = f32x4.splat(0), s1 = f32x4.splat(0), s2 = f32x4.splat(0), s3 = f32x4.splat(0);
    for (let p = 0; p < l4; p += 4) {
      const o = <usize>p << 2, xv = v128.load(x + o);
      s0 = f32x4.add(s0, f32x4.mul(xv, v128.load(m0 + o)));
      s1 = f32x4.add(s1, f32x4.mul(xv, v128.load(m0 + rs + o)));
      s2 = f32x4.add(s2, f32x4.mul(xv, v128.load(m0 + 2 * rs + o)));
      s3 = f32x4.add(s3, f32x4.mul(xv, v128.load(m0 + 3 * rs + o)));
    }
    // transpose-and-add: lane i of the result is the horizontal sum of s_i
    const t0 = f32x4.add(v128.shuffle<f32>(s0, s1, 0, 4, 1, 5), v128.shuffle<f32>(s0, s1, 2, 6, 3, 7));
    const t1 = f32x4.add(v128.shuffle<f32>(s2, s3, 0, 4, 1, 5), v128.shuffle<f32>(s2, s3, 2, 6, 3, 7));
    let sum = f32x4.add(v128.shuffle<f32>(t0, t1, 0, 1, 4, 5), v128.shuffle<f32>(t0, t1, 2, 3, 6, 7));
    for (let p = l4; p < len; p++) {
      const o = <usize>p << 2, xp = load<f32>(x + o);
      sum = f32x4.add(sum, f32x4(xp * load<f32>(m0 + o), xp * load<f32>(m0 + rs + o), xp * load<f32>(m0 + 2 * rs + o), xp * load<f32>(m0 + 3 * rs + o)));
    }
    const d0 = y + ((<usize>r * ys) << 2), ds = <usize>ys << 2;
    if (accumulate) {
      store<f32>(d0, load<f32>(d0) + f32x4.extract_lane(sum, 0));
      store<f32>(d0 + ds, load<f32>(d0 + ds) + f32x4.extract_lane(sum, 1));
      store<f32>(d0 + 2 * ds, load<f32>(d0 + 2 * ds) + f32x4.extract_lane(sum, 2));
      store<f32>(d0 + 3 * ds, load<f32>(d0 + 3 * ds) + f32x4.extract_lane(sum, 3));
    } else {
      store<f32>(d0, f32x4.extract_lane(sum, 0));
      store<f32>(d0 + ds, f32x4.extract_lane(sum, 1));
      store<f32>(d0 + 2 * ds, f32x4.extract_lane(sum, 2));
      store<f32>(d0 + 3 * ds, f32x4.extract_lane(sum, 3));
    }
  }
  for (; r < rows; r++) {
    const m0 = m + <usize>r * rs;
    let s = f32x4.splat(0);
    for (let p = 0; p < l4; p += 4) { const o = <usize>p << 2; s = f32x4.add(s, f32x4.mul(v128.load(x + o), v128.load(m0 + o))); }
    let v = f32x4.extract_lane(s, 0) + f32x4.extract_lane(s, 1) + f32x4.extract_lane(s, 2) + f32x4.extract_lane(s, 3);
    for (let p = l4; p < len; p++) { const o = <usize>p << 2; v += load<f32>(x + o) * load<f32>(m0 + o); }
    const dst = y + ((<usize>r * ys) << 2);
    store<f32>(dst, accumulate ? load<f32>(dst) + v : v);
  }
}

/** y[0:len] (+)= Σ_p x[p]·M[p, 0:len] for p < rows: a weighted sum of stored rows (y contiguous). */
export function gemvAxpy(rows: i32, len: i32, m: usize, ldm: i32, x: usize, y: usize, accumulate: bool): void {
  if (!accumulate) memory.fill(y, 0, <usize>len << 2);
  const rs = <usize>ldm << 2, l4 = len & ~3;
  let p = 0;
  for (; p + 2 <= rows; p += 2) {
    const m0 = m + <usize>p * rs;
    const a0 = v128.load32_splat(x + (<usize>p << 2)), a1 = v128.load32_splat(x + (<usize>p << 2), 4);
    for (let j = 0; j < l4; j += 4) {
      const o = <usize>j << 2;
      v128.store(y + o, f32x4.add(v128.load(y + o), f32x4.add(f32x4.mul(a0, v128.load(m0 + o)), f32x4.mul(a1, v128.load(m0 + rs + o)))));
    }
    const x0 = load<f32>(x + (<usize>p << 2)), x1 = load<f32>(x + (<usize>p << 2), 4);
    for (let j = l4; j < len; j++) {
      const o = <usize>j << 2;
      store<f32>(y + o, load<f32>(y + o) + (x0 * load<f32>(m0 + o) + x1 * load<f32>(m0 + rs + o)));
    }
  }
  for (; p < rows; p++) {
    const m0 = m + <usize>p * rs, a0 = v128.load32_splat(x + (<usize>p << 2)), x0 = load<f32>(x + (<usize>p << 2));
    for (let j = 0; j < l4; j += 4) { const o = <usize>j << 2; v128.store(y + o, f32x4.add(v128.load(y + o), f32x4.mul(a0, v128.load(m0 + o)))); }
    for (let j = l4; j < len; j++) { const o = <usize>j << 2; store<f32>(y + o, load<f32>(y + o) + x0 * load<f32>(m0 + o)); }
  }
}
