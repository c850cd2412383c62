import { ExpressionError } from '../group/errors.js';

/**
 * The compact groups whose irreducible representations paralens knows in closed form:
 * SO(2) (ψ_k, k ≥ 0: the trivial one and the rotations by kθ), SO(3) (ℓ ≥ 0, dimension 2ℓ+1)
 * and O(3) = SO(3) × {±I} (ℓ with a parity p = ±1, written `ℓe` / `ℓo` as in e3nn: the
 * value of the representation on −I). The real bases are those of e3nn (Geiger & Smidt 2022):
 * ℓ = 1 is (x, y, z), so for O(3) the standard representation V is `1o`.
 */
export type IrrepGroup = 'SO(2)' | 'SO(3)' | 'O(3)';

/** One irreducible representation: ℓ (or k for SO(2)) and, for O(3), its parity. */
export interface Irrep {
  readonly l: number;
  /** +1 (`e`) or −1 (`o`) for O(3); 0 for SO(2) and SO(3), which have no parity. */
  readonly p: 1 | -1 | 0;
}

/** mul copies of one irrep, laid out as e3nn does: mul blocks of dim(ir) coordinates each. */
export interface MulIrrep {
  readonly mul: number;
  readonly ir: Irrep;
}

/** dim ψ_k = 1 for k = 0 and 2 otherwise (SO(2)); 2ℓ+1 for SO(3) and O(3). */
export function irrepDim(group: IrrepGroup, ir: Irrep): number {
  return group === 'SO(2)' ? (ir.l === 0 ? 1 : 2) : 2 * ir.l + 1;
}

/** e3nn's name of an irrep: `2e`, `1o` for O(3); `2` for SO(2) and SO(3). */
export function irrepName(ir: Irrep): string {
  return `${ir.l}${ir.p === 1 ? 'e' : ir.p === -1 ? 'o' : ''}`;
}

/** The largest ℓ an irreps expression may name, and the largest multiplicity. */
const MAX_L = 32;
const MAX_MUL = 4096;

/**
 * A direct sum of irreducibles with multiplicities, in e3nn's notation (`2x0e+1x1o`) and
 * layout: the coordinates of `mul x ir` are mul consecutive blocks of dim(ir) values.
 */
export class Irreps {
  readonly dim: number;
  /** The offset of each term's coordinates. */
  readonly offsets: readonly number[];
  constructor(
    readonly group: IrrepGroup,
    readonly terms: readonly MulIrrep[],
  ) {
    const offs: number[] = [];
    let d = 0;
    for (const t of terms) {
      offs.push(d);
      d += t.mul * irrepDim(group, t.ir);
    }
    this.dim = d;
    this.offsets = offs;
  }
  /** dim of term i's irrep. */
  irDim(i: number): number {
    return irrepDim(this.group, this.terms[i]!.ir);
  }
  get lmax(): number {
    return this.terms.reduce((m, t) => Math.max(m, t.ir.l), 0);
  }
  /** The number of irreducible summands, Σ mul. */
  get count(): number {
    return this.terms.reduce((s, t) => s + t.mul, 0);
  }
  /** Equal irreps merged into one term each, sorted by ℓ then parity (e3nn's `simplify().sort()`), zero multiplicities dropped. */
  simplify(): Irreps {
    const m = new Map<string, MulIrrep>();
    for (const t of this.terms) {
      const k = irrepName(t.ir);
      m.set(k, { mul: (m.get(k)?.mul ?? 0) + t.mul, ir: t.ir });
    }
    const sorted = [...m.values()].filter((t) => t.mul > 0).sort((a, b) => a.ir.l - b.ir.l || b.ir.p - a.ir.p);
    return new Irreps(this.group, sorted);
  }
  /** e3nn's notation: `1x0e+1x1e+1x2e` (`1x0+1x1` without parity); the empty sum is the empty string, as in e3nn. */
  toString(): string {
    return this.terms.map((t) => `${t.mul}x${irrepName(t.ir)}`).join('+');
  }
}

/**
 * Parses irreps in e3nn's notation: terms `[MULx]L[e|o]` joined by `+` (spaces allowed),
 * e.g. `2x0e+1x1o`, `0e + 1o + 2e`, `3x1`. Parities make it an O(3) expression (then every
 * term needs one); without them it is SO(3), or SO(2) when `group` says so.
 */
export function parseIrreps(src: string, group?: IrrepGroup): Irreps {
  const terms: MulIrrep[] = [];
  const re = /\s*(?:(\d+)\s*x\s*)?(\d+)\s*([eo]?)\s*/y;
  let i = 0;
  let parity: boolean | undefined;
  const fail = (expected: string, at: number): never => {
    throw new ExpressionError('representation', src, at, expected);
  };
  if (typeof src !== 'string' || !src.trim()) fail('irreps such as 0e+1o or 2x0+1x1', 0);
  for (;;) {
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) fail("an irrep term like '2x1o', '1e' or '3x2'", i + (src.slice(i).length - src.slice(i).trimStart().length));
    const start = i;
    i = re.lastIndex;
    const mul = m![1] === undefined ? 1 : Number(m![1]);
    const l = Number(m![2]);
    if (mul > MAX_MUL) fail(`a multiplicity ≤ ${MAX_MUL}`, start);
    if (l > MAX_L) fail(`ℓ ≤ ${MAX_L}`, start);
    const has = m![3] !== '';
    if (parity === undefined) parity = has;
    else if (parity !== has) fail(has ? 'no parity (the other terms have none)' : "a parity 'e' or 'o' (the other terms have one)", i - 1);
    terms.push({ mul, ir: { l, p: m![3] === 'e' ? 1 : m![3] === 'o' ? -1 : 0 } });
    if (i >= src.length) break;
    if (src[i] !== '+') fail("'+' or the end", i);
    i++;
  }
  const g: IrrepGroup = parity ? 'O(3)' : group === 'O(3)' ? fail("a parity 'e' or 'o' for O(3)", 0) : (group ?? 'SO(3)');
  if (parity && group && group !== 'O(3)') fail(`irreps of ${group} (no parity)`, 0);
  return new Irreps(g, terms);
}

/** Irreps as written or already parsed. */
export type IrrepsLike = Irreps | string;

export const toIrreps = (x: IrrepsLike, group?: IrrepGroup): Irreps => (typeof x === 'string' ? parseIrreps(x, group) : x);

/** Which irreps group a paralens group is, if it has irreps in closed form here. */
export function irrepGroupOf(name: string): IrrepGroup | undefined {
  return name === 'SO(2)' || name === 'SO(3)' || name === 'O(3)' ? name : undefined;
}
