import { GROUP_FORMS, parseGroup } from '../../symmetry/group/parse-group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { endOverGroup } from '../../ends/report.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { fmt } from '../progress.js';

/** `paralens end`: the end ∫_g Hom(ρ_in(g), ρ_out(g)) over a finite group seen as a one-object category. */
export const command = defineCommand({
  name: 'end',
  summary: 'the end ∫_g Hom(ρ_in(g), ρ_out(g)) over a finite group, as an equaliser, beside the equivariance solver',
  usage: 'paralens end --group G --in REP --out REP [--json]',
  description: `Sees the finite group G as a one-object category BG (one arrow per element) and computes the
end of Hom(ρ_in(−), ρ_out(−)) as the equaliser of ⊕ Hom(ρ_in, ρ_out) ⇉ Π_g Hom(ρ_in, ρ_out), i.e. the
maps W with ρ_out(g)W = Wρ_in(g) for every element g — an equaliser needs only the generating arrows,
so the equations are those of G's generators (the nullspace solver gives a basis). Prints its
dimension, the equivariance solver's dimension and whether they agree, the largest residual
‖ρ_out(g)W − Wρ_in(g)‖ over every element g (the check that the generators suffice), and the
set-valued end of Hom (the centre of G).
Finite groups: ${GROUP_FORMS.filter((g) => !/SO|O\(/.test(g)).join(', ')}, O(1).
Example: paralens end --group 'S(3)' --in V --out V   (dimension 2: span{I, 11ᵀ}).`,
  flags: {
    group: { type: 'string', help: "a finite group, e.g. 'S(3)', 'Z(6)', 'D(4)'" },
    in: { type: 'string', help: "input representation, e.g. 'V', 'T(2)', 'V+T(0)'" },
    out: { type: 'string', help: 'output representation' },
    'max-order': { type: 'int', help: 'refuse groups with more elements than this', default: 1000, range: 'positive' },
  },
  async run(flags, io) {
    const { group, in: repIn, out: repOut } = flags;
    if (!group || !repIn || !repOut)
      throw new UsageError(`end: --${!group ? 'group' : !repIn ? 'in' : 'out'} is required, e.g. paralens end --group 'S(3)' --in V --out V`);
    // the representations first: a malformed one is refused before the group (up to 256 MiB of generators) is built
    const rin = parseRep(repIn),
      rout = parseRep(repOut);
    const r = endOverGroup(parseGroup(group), rin, rout, { maxOrder: flags['max-order'] });
    if (flags.json) {
      io.out(
        JSON.stringify({
          group: r.group,
          order: r.order,
          in: r.in,
          out: r.out,
          in_size: r.inSize,
          out_size: r.outSize,
          unknowns: r.unknowns,
          equations: r.equations,
          generators: r.generators,
          dim: r.dim,
          solver_dim: r.solverDim,
          agree: r.dim === r.solverDim,
          max_residual: r.residual,
          residual_over: r.residualOver,
          centre: r.centre,
        }) + '\n',
      );
      return r.dim === r.solverDim ? 0 : 1;
    }
    const show = (xs: readonly string[]): string => (xs.length <= 12 ? xs.join(', ') : `${xs.slice(0, 12).join(', ')}, … (${xs.length - 12} more)`);
    io.out(`∫_g Hom(${r.in}(g), ${r.out}(g)) over B${r.group}: one object, ${r.order} arrows\n`);
    io.out(
      `Hom(${r.in}, ${r.out})        ${r.outSize}×${r.inSize} maps (${r.unknowns} unknowns), ${r.equations} equations from the ${r.generators} generating arrows (the other ${r.order - 1 - r.generators} non-identity arrows follow)\n`,
    );
    io.out(`end dimension         ${r.dim}\n`);
    io.out(`equivariance solver   ${r.solverDim} (${r.dim === r.solverDim ? 'agrees' : 'DISAGREES'})\n`);
    io.out(
      `max residual          ${fmt(r.residual, 3)} (‖ρ_out(g)W − Wρ_in(g)‖ over ${r.residualOver === 'elements' ? `all ${r.order} elements` : `the ${r.generators} generators (every element would cost more than the limit)`} and ${r.dim} basis maps)\n`,
    );
    io.out(`set-valued end of Hom (the centre Z(${r.group})): ${r.centre.length} element${r.centre.length === 1 ? '' : 's'}: ${show(r.centre)}\n`);
    return r.dim === r.solverDim ? 0 : 1;
  },
});
