/**
 * The end over a permutation group, exactly (EMLP §5, "permutation representations"): for
 * permutation representations P_out, P_in the equivariant maps W satisfy
 * W[σ_out(o), σ_in(i)] = W[o, i], so W is constant on the G-orbits of the pairs (o, i)
 * and the indicator matrices of those orbits (normalised) are an orthonormal basis.
 * Orbits come from union-find over the generators: near-linear time, no floating point.
 */
export interface OrbitBasis {
  /** Orbit index of each pair o·nIn + i. */
  readonly label: Int32Array;
  /** Number of orbits = dim Hom_G. */
  readonly count: number;
  /** Size of each orbit. */
  readonly sizes: Int32Array;
}

/**
 * Orbits of the pairs (o, i) under the generators, given as (σ_out, σ_in) permutation pairs.
 * A generator may be partial — a bijection between subsets, −1 where it is undefined — as the
 * shifts of a window of a sequence or a grid are (the partial action of ℤ or ℤ² restricted to
 * the window): a pair is then joined with its image only where both coordinates have one, and
 * the classes are the orbits of the groupoid the partial maps generate.
 */
export function pairOrbits(nOut: number, nIn: number, generators: readonly { out: Int32Array; in: Int32Array }[]): OrbitBasis {
  const n = nOut * nIn;
  const parent = new Int32Array(n);
  for (let x = 0; x < n; x++) parent[x] = x;
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (const g of generators)
    for (let o = 0; o < nOut; o++) {
      const to = g.out[o]!;
      if (to < 0) continue;
      const go = to * nIn;
      for (let i = 0; i < nIn; i++) {
        const ti = g.in[i]!;
        if (ti < 0) continue;
        const a = find(o * nIn + i),
          b = find(go + ti);
        if (a !== b) parent[a < b ? b : a] = a < b ? a : b;
      }
    }
  const label = new Int32Array(n).fill(-1);
  const ids = new Int32Array(n).fill(-1);
  let count = 0;
  for (let x = 0; x < n; x++) {
    const r = find(x);
    if (ids[r] === -1) ids[r] = count++;
    label[x] = ids[r]!;
  }
  const sizes = new Int32Array(count);
  for (let x = 0; x < n; x++) sizes[label[x]!]!++;
  return { label, count, sizes };
}
