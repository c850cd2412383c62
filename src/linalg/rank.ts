/** Pairwise Euclidean distances of the rows of a [N, p] block, in the order (0,1), (0,2), …, (N−2,N−1). */
export function pairwiseDistances(h: ArrayLike<number>, N: number): number[] {
  const p = h.length / N;
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    for (let j = i + 1; j < N; j++) {
      let s = 0;
      for (let k = 0; k < p; k++) s += (h[i * p + k]! - h[j * p + k]!) ** 2;
      out.push(Math.sqrt(s));
    }
  }
  return out;
}

/** Ranks 1..n, ties sharing their average rank. */
export function ranks(v: readonly number[]): number[] {
  const idx = v.map((_, i) => i).sort((a, b) => v[a]! - v[b]!);
  const r = new Array<number>(v.length);
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && v[idx[j + 1]!] === v[idx[i]!]) j++;
    for (let k = i; k <= j; k++) r[idx[k]!] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Spearman's rank correlation ρ: the Pearson correlation of the ranks (NaN when either side is constant). */
export function spearman(a: readonly number[], b: readonly number[]): number {
  const ra = ranks(a),
    rb = ranks(b);
  const n = a.length;
  const ma = ra.reduce((s, v) => s + v, 0) / n,
    mb = rb.reduce((s, v) => s + v, 0) / n;
  let num = 0,
    da = 0,
    db = 0;
  for (let i = 0; i < n; i++) {
    num += (ra[i]! - ma) * (rb[i]! - mb);
    da += (ra[i]! - ma) ** 2;
    db += (rb[i]! - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}
