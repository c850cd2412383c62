import { ToposError } from '../../category/errors.js';

/**
 * A finite joint distribution of discrete variables X₀ … X_{n−1}: outcomes (rows of values,
 * one per variable) with their probabilities. The setting of Baudot–Bennequin's information
 * cohomology (Baudot & Bennequin, "The homological nature of entropy", Entropy 17, 2015;
 * Belfiore–Bennequin §3.3).
 */
export interface Distribution {
  readonly variables: number;
  readonly outcomes: readonly (readonly number[])[];
  readonly probs: readonly number[];
}

/** The empirical distribution of a list of samples (equal rows merged). */
export function empiricalDistribution(rows: readonly (readonly number[])[]): Distribution {
  if (!rows.length) throw new ToposError('an empirical distribution needs at least one sample');
  const n = rows[0]!.length;
  const count = new Map<string, { row: readonly number[]; c: number }>();
  for (const r of rows) {
    if (r.length !== n) throw new ToposError(`every sample needs ${n} values, got ${r.length}`);
    const k = r.join(',');
    const e = count.get(k);
    if (e) e.c++;
    else count.set(k, { row: r, c: 1 });
  }
  const es = [...count.values()];
  return { variables: n, outcomes: es.map((e) => e.row), probs: es.map((e) => e.c / rows.length) };
}

function checkVars(P: Distribution, vars: readonly number[]): void {
  for (const v of vars) if (!(Number.isInteger(v) && v >= 0 && v < P.variables)) throw new ToposError(`variable ${v} is not one of 0 … ${P.variables - 1}`);
}

/** The marginal law of the joint variable (X_v)_{v ∈ vars}: outcome key → probability. */
export function marginalLaw(P: Distribution, vars: readonly number[]): Map<string, number> {
  checkVars(P, vars);
  const m = new Map<string, number>();
  P.outcomes.forEach((o, i) => {
    const k = vars.map((v) => o[v]).join(',');
    m.set(k, (m.get(k) ?? 0) + P.probs[i]!);
  });
  return m;
}

/** Shannon entropy H(X_S) = −Σ p log₂ p of the joint variable X_S, in bits (H(∅) = 0). */
export function shannonEntropy(P: Distribution, vars: readonly number[]): number {
  let h = 0;
  for (const p of marginalLaw(P, vars).values()) if (p > 0) h -= p * Math.log2(p);
  return h + 0;
}

/** The conditional law P | (X_S = x) (renormalised). */
export function conditionDistribution(P: Distribution, vars: readonly number[], values: readonly number[]): Distribution {
  checkVars(P, vars);
  const keep = P.outcomes.map((o) => vars.every((v, i) => o[v] === values[i]));
  const z = P.probs.reduce((s, p, i) => s + (keep[i] ? p : 0), 0);
  if (!(z > 0)) throw new ToposError(`cannot condition on an event of probability 0 (X${vars.join(',X')} = ${values.join(',')})`);
  return { variables: P.variables, outcomes: P.outcomes.filter((_, i) => keep[i]), probs: P.probs.flatMap((p, i) => (keep[i] ? [p / z] : [])) };
}

/** A functional of the law and a variable set, like the entropy (P, Y) ↦ H_P(Y). */
export type InformationFunction = (P: Distribution, vars: readonly number[]) => number;

/**
 * The action of a variable X on functionals (Baudot–Bennequin 2015, Def. 1):
 * (X.F)(Y) = Σ_x p(X = x) F(P | X = x, Y), conditioning by the value of X and averaging.
 */
export function conditionalAction(P: Distribution, X: readonly number[], F: InformationFunction, Y: readonly number[]): number {
  let s = 0;
  for (const [key, p] of marginalLaw(P, X)) {
    if (p > 0) s += p * F(conditionDistribution(P, X, key.split(',').map(Number)), Y);
  }
  return s;
}

/**
 * The 1-cocycle defect of the entropy: H(XY) − H(X) − X.H(Y). It vanishes for every X, Y
 * (δH = 0: the chain rule, Baudot–Bennequin 2015, Thm. 1), so entropy is a cocycle.
 */
export function cocycleDefect(P: Distribution, X: readonly number[], Y: readonly number[]): number {
  const XY = [...new Set([...X, ...Y])].sort((a, b) => a - b);
  return shannonEntropy(P, XY) - shannonEntropy(P, X) - conditionalAction(P, X, shannonEntropy, Y);
}

/**
 * The multivariate mutual information I_k(X₁; …; X_k) = Σ_{∅ ≠ S ⊆ {1…k}} (−1)^{|S|+1} H(X_S)
 * (Hu Kuo Ting 1962; Baudot–Bennequin 2015, §3): I₁ = H, I₂ the mutual information, I₃ the
 * co-information (negative for synergy, as in XOR).
 */
export function mutualInformationK(P: Distribution, vars: readonly number[]): number {
  const k = vars.length;
  if (k === 0 || k > 20) throw new ToposError(`I_k needs 1 … 20 variables, got ${k}`);
  let s = 0;
  for (let mask = 1; mask < 1 << k; mask++) {
    const S = vars.filter((_, i) => mask & (1 << i));
    s += (S.length % 2 ? 1 : -1) * shannonEntropy(P, S);
  }
  return s;
}

/**
 * Discretises real samples column by column into `bins` equal-width bins between each
 * column's observed minimum and maximum (a constant column gets bin 0).
 */
export function discretiseColumns(rows: readonly (readonly number[])[], bins: number): number[][] {
  if (!(Number.isInteger(bins) && bins >= 2)) throw new ToposError(`bins must be an integer ≥ 2, got ${bins}`);
  if (!rows.length) return [];
  const n = rows[0]!.length;
  // loops, not Math.min(...column): one argument per sample overflows the stack on large data
  const lo = new Array<number>(n).fill(Infinity),
    hi = new Array<number>(n).fill(-Infinity);
  for (const r of rows) {
    for (let j = 0; j < n; j++) {
      lo[j] = Math.min(lo[j]!, r[j]!);
      hi[j] = Math.max(hi[j]!, r[j]!);
    }
  }
  return rows.map((r) => r.map((v, j) => (hi[j]! > lo[j]! ? Math.min(bins - 1, Math.floor(((v - lo[j]!) / (hi[j]! - lo[j]!)) * bins)) : 0)));
}
