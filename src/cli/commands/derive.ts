import { basisMatrix, equivarianceError, equivariantBasis } from '../../symmetry/solve/solver.js';
import { GROUP_FORMS, parseGroup } from '../../symmetry/group/parse-group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { decompose, decomposeSymmetric, decompositionString } from '../../symmetry/irreps/decompose.js';
import type { Decomposition } from '../../symmetry/irreps/decompose.js';
import { parseIndexSymmetry } from '../../symmetry/irreps/index-symmetry.js';
import { irrepDim, irrepGroupOf, irrepName } from '../../symmetry/irreps/irrep.js';
import { repToString } from '../../symmetry/group/rep.js';
import type { Rep } from '../../symmetry/group/rep.js';
import { UsageError } from '../args.js';
import { ATTENTION_FORMS, runAttention } from './derive-attention.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../command.js';
import type { Flags, ParsedFlags } from '../args.js';
import { fmt, table } from '../progress.js';

/** A matrix as aligned text rows (for small bases). */
export function matrixLines(m: { rows: number; cols: number; data: Float64Array }, digits = 3): string[] {
  const cells = Array.from({ length: m.rows }, (_, i) =>
    Array.from({ length: m.cols }, (_, j) => {
      const v = m.data[i * m.cols + j]!;
      return Math.abs(v) < 1e-12 ? '0' : Number(v.toFixed(digits)).toString();
    }),
  );
  const w = cells.reduce((m, r) => r.reduce((x, c) => Math.max(x, c.length), m), 0);
  return cells.map((r) => `  [ ${r.map((c) => c.padStart(w)).join(' ')} ]`);
}

const deriveFlags = {
  group: { type: 'string', help: "symmetry group, e.g. 'S(4)', 'Trans(8)', 'SO(3)', 'O(1,3)'" },
  in: { type: 'string', help: "input representation, e.g. 'V', 'T(2)', 'V+T(0)'" },
  out: { type: 'string', help: 'output representation' },
  basis: { type: 'boolean', help: 'include the basis matrices (JSON) / print every basis element' },
  'dense-limit': { type: 'int', help: 'unknowns per block up to which the dense solver is used', default: 1200, range: 'positive' },
  'max-memory': { type: 'number', help: 'refuse solves estimated to need more than this many MiB', default: 1024, range: 'positive' },
  seed: { type: 'int', help: 'seed for random group elements and the iterative solver', default: 0 },
  decompose: { type: 'string', help: "decompose this representation into irreducibles (SO(2), SO(3), O(3)), e.g. 'T(2)'" },
  symmetry: { type: 'string', help: "with --decompose T(k): only the tensors with these index symmetries, e.g. 'ij=-ji', 'ijkl=jikl=klij'" },
  attention: { type: 'string', help: `the kernel space of attention on a geometry: ${ATTENTION_FORMS}` },
  'head-width': { type: 'int', help: 'with --attention seq(T,rotary): the head width dh (even)', default: 8, range: 'positive' },
} as const satisfies Flags;

export const command = defineCommand({
  name: 'derive',
  summary: 'derive the equivariant basis Hom_G(in, out) — the end over a symmetry group',
  usage:
    "paralens derive --group G --in REP --out REP [--json] [--basis]\n       paralens derive --group 'SO(2)|SO(3)|O(3)' --decompose REP [--symmetry 'ij=-ji'] [--json]\n       paralens derive --attention GEOMETRY [--head-width dh] [--json] [--basis]",
  description: `Solves ρ_out(g)·W = W·ρ_in(g) for all g in G (the end ∫_g Hom(ρ_in, ρ_out)) and prints
the dimension, the measured equivariance error and the time; small bases are shown.
Groups: ${GROUP_FORMS.join(', ')}.
Representations: V, T(k), T(p,q), dual(R), A+B, A*B, 3V, T(0) (trivial).
Example: paralens derive --group 'S(4)' --in V --out V  (DeepSets: span{I, 11ᵀ}).

--decompose REP splits a representation of SO(2), SO(3) or O(3) into irreducibles with
multiplicities, in e3nn's notation (O(3): parity e/o, V is 1o; SO(2): ψ_k written k), e.g.
--group 'SO(3)' --decompose 'T(2)' gives 0 ⊕ 1 ⊕ 2 (1x0+1x1+1x2). --symmetry restricts T(k) to the
tensors with the given index symmetries first (e3nn's formula: 'ij=ji', 'ij=-ji',
'ijkl=jikl=klij' for an elasticity tensor) and reports the dimension of that subspace.

--attention GEOMETRY derives the kernel space of attention on a declared geometry (docs/attention.md):
${ATTENTION_FORMS}. Finite geometries: the invariant kernels K(g·q, g·k) = K(q, k) on the
visible pairs, one basis element per orbit of G on pairs (seq(8) has 15, one per offset k − q);
points(n,lmax): the invariant of a pair of points (|x_k − x_q|², by the solver) in a radial basis,
and the equivariant value maps up to lmax from the Clebsch–Gordan coefficients. --basis adds the
matrices; --head-width sets dh for seq(T,rotary) (default 8).`,
  flags: deriveFlags,
  async run(flags, io) {
    if (flags.attention !== undefined) return runAttention(flags, io);
    if (flags.decompose !== undefined || flags.symmetry !== undefined) return runDecompose(flags, io);
    const { group, in: repIn, out: repOut } = flags;
    if (!group || !repIn || !repOut)
      throw new UsageError(`derive: --${!group ? 'group' : !repIn ? 'in' : 'out'} is required, e.g. paralens derive --group 'S(4)' --in V --out V`);
    // the representations first: a malformed one is refused before the group (up to 256 MiB of generators) is built
    const rin = parseRep(repIn),
      rout = parseRep(repOut);
    const G = parseGroup(group);
    const b = equivariantBasis(G, rin, rout, {
      denseLimit: flags['dense-limit'],
      maxBytes: flags['max-memory'] * 2 ** 20,
      seed: flags.seed,
    });
    const err = equivarianceError(b);
    const showBasis = Boolean(flags.basis);
    if (flags.json) {
      const out: Record<string, unknown> = {
        group: b.group,
        in: b.in,
        out: b.out,
        in_size: b.nIn,
        out_size: b.nOut,
        dim: b.dim,
        equivariance_error: err,
        generator_residual: b.generatorResidual,
        random_element_error: b.randomElementError ?? null,
        seconds: b.seconds,
        blocks: b.blocks,
      };
      if (showBasis) out.element_errors = Array.from(b.elementErrors);
      if (showBasis)
        out.basis = Array.from({ length: b.dim }, (_, k) => {
          const m = basisMatrix(b, k);
          return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
        });
      io.out(JSON.stringify(out) + '\n');
      return 0;
    }
    io.out(`Hom_${b.group}(${b.in}, ${b.out}): ${b.nOut}×${b.nIn} maps\n`);
    io.out(`dimension            ${b.dim}\n`);
    io.out(
      `equivariance error   ${fmt(err, 3)} (${b.randomElementError !== undefined ? 'max over basis and random group elements' : 'max generator residual'})\n`,
    );
    io.out(`solved in            ${fmt(b.seconds, 3)} s\n`);
    io.out(
      table(
        ['block out ← in', 'unknowns', 'dim', 'method', 'uses', 'seconds'],
        b.blocks.map((x) => [`${x.out} ← ${x.in}`, x.unknowns, x.dim, x.method, x.uses, fmt(x.seconds, 3)]),
      ) + '\n',
    );
    const show = showBasis ? b.dim : b.nOut * b.nIn <= 64 ? Math.min(b.dim, 6) : 0;
    for (let k = 0; k < show; k++) {
      io.out(`basis element ${k + 1}:\n${matrixLines(basisMatrix(b, k)).join('\n')}\n`);
    }
    if (show < b.dim && show > 0) io.out(`… ${b.dim - show} more (--basis shows all)\n`);
    return 0;
  },
});

/** k when r is T(k) = V^⊗k exactly. */
function tensorPower(r: Rep): number | undefined {
  if (r.kind === 'V') return 1;
  if (r.kind === 'trivial') return 0;
  return r.kind === 'tensor' && r.factors.every((f) => f.kind === 'V') ? r.factors.length : undefined;
}

/** Multiplicities as JSON numbers where they are exact, as strings beyond 2^53. */
const jsonCount = (x: bigint): number | string => (x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x.toString());

/** 0 ⊕ 3·1 ⊕ 2·2: the decomposition as one writes it by hand. */
function sumNotation(d: Decomposition): string {
  return d.terms.length ? d.terms.map((t) => `${t.mul === 1n ? '' : `${t.mul}·`}${irrepName(t.ir)}`).join(' ⊕ ') : '0';
}

async function runDecompose(flags: ParsedFlags<typeof deriveFlags>, io: CliIO): Promise<number> {
  if (!flags.group) throw new UsageError("derive --decompose: --group is required, e.g. --group 'SO(3)' --decompose 'T(2)'");
  if (flags.in !== undefined || flags.out !== undefined)
    throw new UsageError('derive: give either --in and --out (a basis of Hom_G) or --decompose (irreducibles), not both');
  const G = parseGroup(flags.group);
  const group = irrepGroupOf(G.name);
  if (!group) throw new UsageError(`derive --decompose: irreducible decompositions are known for SO(2), SO(3) and O(3); got ${G.name}`);
  const sym = flags.symmetry !== undefined ? parseIndexSymmetry(flags.symmetry) : undefined;
  const rep = parseRep(flags.decompose ?? `T(${sym!.order})`);
  if (sym) {
    const k = tensorPower(rep);
    if (k !== sym.order)
      throw new UsageError(
        `derive --symmetry '${sym.formula}' has ${sym.order} indices, so it restricts T(${sym.order}); got --decompose '${flags.decompose}'`,
      );
  }
  const t0 = performance.now();
  const d = sym ? decomposeSymmetric(group, sym) : decompose(group, rep);
  const seconds = (performance.now() - t0) / 1000;
  const what = `${repToString(rep)}${sym ? ` with ${sym.formula}` : ''}`;
  if (flags.json) {
    io.out(
      JSON.stringify({
        group: G.name,
        rep: repToString(rep),
        symmetry: sym?.formula ?? null,
        consistent: sym?.consistent ?? true,
        decomposition: decompositionString(d),
        dim: jsonCount(d.dim),
        irreps: d.terms.map((t) => ({ mul: jsonCount(t.mul), l: t.ir.l, parity: t.ir.p === 1 ? 'e' : t.ir.p === -1 ? 'o' : null, dim: irrepDim(group, t.ir) })),
        seconds,
      }) + '\n',
    );
    return 0;
  }
  io.out(`${what} under ${G.name}: ${sumNotation(d)}\n`);
  io.out(`e3nn notation  ${decompositionString(d)}\n`);
  io.out(`dimension      ${d.dim}${sym && !sym.consistent ? ` (the relations force T = −T)` : ''}\n`);
  if (d.terms.length)
    io.out(
      table(
        ['irrep', 'multiplicity', 'dim'],
        d.terms.map((t) => [irrepName(t.ir), t.mul.toString(), irrepDim(group, t.ir)]),
      ) + '\n',
    );
  return 0;
}
