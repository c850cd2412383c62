import { basisMatrix, equivarianceError, equivariantBasis } from '../../equivariant/solve/solver.js';
import { GROUP_FORMS, parseGroup } from '../../equivariant/group/parse-group.js';
import { parseRep } from '../../equivariant/group/parse-rep.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { fmt, table } from '../progress.js';

/** A matrix as aligned text rows (for small bases). */
export function matrixLines(m: { rows: number; cols: number; data: Float64Array }, digits = 3): string[] {
  const cells = Array.from({ length: m.rows }, (_, i) => Array.from({ length: m.cols }, (_, j) => {
    const v = m.data[i * m.cols + j]!;
    return Math.abs(v) < 1e-12 ? '0' : Number(v.toFixed(digits)).toString();
  }));
  const w = cells.reduce((m, r) => r.reduce((x, c) => Math.max(x, c.length), m), 0);
  return cells.map((r) => `  [ ${r.map((c) => c.padStart(w)).join(' ')} ]`);
}

export const command: Command = {
  name: 'derive',
  summary: 'derive the equivariant basis Hom_G(in, out) — the end over a symmetry group',
  usage: 'paralens derive --group G --in REP --out REP [--json] [--basis]',
  description: `Solves ρ_out(g)·W = W·ρ_in(g) for all g in G (the end ∫_g Hom(ρ_in, ρ_out)) and prints
the dimension, the measured equivariance error and the time; small bases are shown.
Groups: ${GROUP_FORMS.join(', ')}.
Representations: V, T(k), T(p,q), dual(R), A+B, A*B, 3V, T(0) (trivial).
Example: paralens derive --group 'S(4)' --in V --out V  (DeepSets: span{I, 11ᵀ}).`,
  flags: {
    group: { type: 'string', help: "symmetry group, e.g. 'S(4)', 'Trans(8)', 'SO(3)', 'O(1,3)'" },
    in: { type: 'string', help: "input representation, e.g. 'V', 'T(2)', 'V+T(0)'" },
    out: { type: 'string', help: 'output representation' },
    basis: { type: 'boolean', help: 'include the basis matrices (JSON) / print every basis element' },
    'dense-limit': { type: 'int', help: 'unknowns per block up to which the dense solver is used', default: 1200, range: 'positive' },
    'max-memory': { type: 'number', help: 'refuse solves estimated to need more than this many MiB', default: 1024, range: 'positive' },
    seed: { type: 'int', help: 'seed for random group elements and the iterative solver', default: 0 },
  },
  async run(flags, io) {
    for (const k of ['group', 'in', 'out'] as const) {
      if (!flags[k]) throw new UsageError(`derive: --${k} is required, e.g. paralens derive --group 'S(4)' --in V --out V`);
    }
    const G = parseGroup(flags.group as string);
    const rin = parseRep(flags.in as string), rout = parseRep(flags.out as string);
    const b = equivariantBasis(G, rin, rout, {
      denseLimit: flags['dense-limit'] as number,
      maxBytes: (flags['max-memory'] as number) * 2 ** 20,
      seed: flags.seed as number,
    });
    const err = equivarianceError(b);
    const showBasis = Boolean(flags.basis);
    if (flags.json) {
      const out: Record<string, unknown> = {
        group: b.group, in: b.in, out: b.out, in_size: b.nIn, out_size: b.nOut, dim: b.dim,
        equivariance_error: err, generator_residual: b.generatorResidual, random_element_error: b.randomElementError ?? null,
        seconds: b.seconds, blocks: b.blocks,
      };
      if (showBasis) out.element_errors = Array.from(b.elementErrors);
      if (showBasis) out.basis = Array.from({ length: b.dim }, (_, k) => {
        const m = basisMatrix(b, k);
        return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
      });
      io.out(JSON.stringify(out) + '\n');
      return 0;
    }
    io.out(`Hom_${b.group}(${b.in}, ${b.out}): ${b.nOut}×${b.nIn} maps\n`);
    io.out(`dimension            ${b.dim}\n`);
    io.out(`equivariance error   ${fmt(err, 3)} (${b.randomElementError !== undefined ? 'max over basis and random group elements' : 'max generator residual'})\n`);
    io.out(`solved in            ${fmt(b.seconds, 3)} s\n`);
    io.out(table(['block out ← in', 'unknowns', 'dim', 'method', 'uses', 'seconds'], b.blocks.map((x) => [`${x.out} ← ${x.in}`, x.unknowns, x.dim, x.method, x.uses, fmt(x.seconds, 3)])) + '\n');
    const show = showBasis ? b.dim : b.nOut * b.nIn <= 64 ? Math.min(b.dim, 6) : 0;
    for (let k = 0; k < show; k++) {
      io.out(`basis element ${k + 1}:\n${matrixLines(basisMatrix(b, k)).join('\n')}\n`);
    }
    if (show < b.dim && show > 0) io.out(`… ${b.dim - show} more (--basis shows all)\n`);
    return 0;
  },
};
