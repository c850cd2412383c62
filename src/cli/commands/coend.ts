import { parsePoset } from '../../category/finite.js';
import { parseGroup } from '../../symmetry/group/parse-group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { coinvariants, conjugacyClasses, homCoend } from '../../ends/report.js';
import type { HomCoend } from '../../ends/report.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../command.js';
import { fmt } from '../progress.js';

function printClasses(q: HomCoend, what: string, list: number, io: CliIO): void {
  io.out(`∫^c Hom(c, c) over ${q.category}: ${q.size} endomorphisms → ${q.classes.length} ${what}\n`);
  q.classes.slice(0, list).forEach((cls, k) => {
    const members = cls.length <= 8 ? cls.join(', ') : `${cls.slice(0, 8).join(', ')}, … (${cls.length - 8} more)`;
    io.out(`  [${k + 1}] size ${cls.length}: ${members}\n`);
  });
  if (q.classes.length > list) io.out(`  … ${q.classes.length - list} more classes (--list N shows more)\n`);
}

/** `paralens coend`: coends of Hom over a finite group or poset, and coinvariants ρ ⊗_G σ. */
export const command = defineCommand({
  name: 'coend',
  summary: 'coends as coequalisers: ∫^c Hom(c, c) over a finite group or poset, coinvariants ρ ⊗_G σ',
  usage: "paralens coend --hom (--group G | --poset 'a<b, a<c') [--json]  |  paralens coend --group G --in REP --out REP [--json]",
  description: `The coend ∫^c F(c, c) is ⊔_c F(c, c) modulo x·f ~ f·x (a union–find over every arrow f).
--hom --group G: F = Hom over the one-object category BG; the classes are the conjugacy classes of G.
--hom --poset P: F = Hom over a poset written as relations ("a<b, a<c"); one class per element.
--group G --in R --out S: the vector-valued coend of R* ⊗ S over BG, the coinvariants R ⊗_G S; prints
its dimension (a quotient, via the nullspace solver) beside the character inner product (1/|G|) Σ χ_R χ_S.`,
  flags: {
    hom: { type: 'boolean', help: 'the coend of the hom functor (needs --group or --poset)' },
    group: { type: 'string', help: "a finite group, e.g. 'S(3)', 'Z(6)', 'D(4)'" },
    poset: { type: 'string', help: 'a poset as generating relations, e.g. "a<b, a<c" or "0<1<2"' },
    in: { type: 'string', help: 'with --group: the representation R of R ⊗_G S' },
    out: { type: 'string', help: 'with --group: the representation S of R ⊗_G S' },
    list: { type: 'int', help: 'how many classes to print (--json lists all)', default: 20, range: 'nonnegative' },
    'max-order': { type: 'int', help: 'refuse groups with more elements than this', default: 1000, range: 'positive' },
  },
  async run(flags, io) {
    const maxOrder = flags['max-order'];
    const json = Boolean(flags.json);
    if (flags.hom) {
      if (flags.in || flags.out) throw new UsageError('coend: --hom takes no --in/--out (those are for the coinvariants R ⊗_G S)');
      const { group, poset } = flags;
      const q =
        group && !poset ? conjugacyClasses(parseGroup(group), { maxOrder }) : poset && !group ? homCoend(parsePoset(poset), `the poset ${poset}`) : undefined;
      if (!q) throw new UsageError("coend --hom needs exactly one of --group G or --poset 'a<b, a<c'");
      if (json) {
        io.out(
          JSON.stringify({ functor: 'Hom', over: flags.group ? q.category : flags.poset, endomorphisms: q.size, count: q.classes.length, classes: q.classes }) +
            '\n',
        );
        return 0;
      }
      printClasses(q, flags.group ? 'classes (the conjugacy classes)' : 'classes (one per element)', flags.list, io);
      return 0;
    }
    if (flags.group && flags.in && flags.out) {
      // the representations first: a malformed one is refused before the group (up to 256 MiB of generators) is built
      const rin = parseRep(flags.in),
        rout = parseRep(flags.out);
      const r = coinvariants(parseGroup(flags.group), rin, rout, { maxOrder });
      if (json) {
        io.out(
          JSON.stringify({
            group: r.group,
            order: r.order,
            in: r.in,
            out: r.out,
            size: r.size,
            dim: r.dim,
            character_inner_product: r.characterInnerProduct,
            agree: Math.abs(r.dim - r.characterInnerProduct) < 1e-9,
          }) + '\n',
        );
        return 0;
      }
      io.out(`${r.in} ⊗_${r.group} ${r.out} = ∫^{B${r.group}} ${r.in}* ⊗ ${r.out}: ${r.size} dimensions modulo ${r.order} group elements\n`);
      io.out(`coend dimension             ${r.dim}\n`);
      io.out(
        `(1/|G|) Σ_g χ_in(g)χ_out(g)  ${fmt(r.characterInnerProduct, 6)} (${Math.abs(r.dim - r.characterInnerProduct) < 1e-9 ? 'agrees' : 'DISAGREES'})\n`,
      );
      return 0;
    }
    throw new UsageError("coend: give --hom with --group G or --poset P, or --group G --in REP --out REP; e.g. paralens coend --hom --group 'S(3)'");
  },
});
