import { categoryFromPoset } from '../../src/category/finite.js';
import type { FiniteCategory } from '../../src/category/finite.js';

/** Rank by Gaussian elimination with partial pivoting (independent of the nullspace solver). */
export function rank(rows: number[][], tol = 1e-9): number {
  const A = rows.map((r) => r.slice());
  const m = A.length,
    n = A[0]?.length ?? 0;
  let r = 0;
  for (let c = 0; c < n && r < m; c++) {
    let p = r;
    for (let i = r + 1; i < m; i++) if (Math.abs(A[i]![c]!) > Math.abs(A[p]![c]!)) p = i;
    if (Math.abs(A[p]![c]!) <= tol) continue;
    [A[r], A[p]] = [A[p]!, A[r]!];
    for (let i = r + 1; i < m; i++) {
      const f = A[i]![c]! / A[r]![c]!;
      if (f !== 0) for (let j = c; j < n; j++) A[i]![j]! -= f * A[r]![j]!;
    }
    r++;
  }
  return r;
}

/** A poset on n elements from relations i < j (i < j as numbers, so it is acyclic), transitively closed. */
export function posetFrom(n: number, rel: readonly [number, number][]): FiniteCategory {
  const le = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => i === j));
  for (const [a, b] of rel) if (a < b) le[a]![b] = true;
  for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (le[a]![k] && le[k]![b]) le[a]![b] = true;
  return categoryFromPoset(
    Array.from({ length: n }, (_, i) => `p${i}`),
    (a, b) => le[a]![b]!,
  );
}

/** Brute-force conjugacy classes from a multiplication table and inverses: orbits of x ↦ g x g⁻¹. */
export function conjugacyClassesBrute(table: (g: number, f: number) => number, inverse: (g: number) => number, order: number): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  for (let x = 0; x < order; x++) {
    if (seen.has(x)) continue;
    const cls = new Set<number>();
    for (let g = 0; g < order; g++) cls.add(table(table(g, x), inverse(g)));
    cls.forEach((y) => seen.add(y));
    out.push([...cls].sort((a, b) => a - b));
  }
  return out;
}
