import { checkLaws, unitSamples } from '../../topos/logic/laws.js';
import type { LawReport } from '../../topos/logic/laws.js';
import { truthAlgebra, truthAlgebraNames, truthAlgebras } from '../../topos/logic/by-name.js';
import type { HeytingAlgebra } from '../../topos/logic/heyting.js';
import { commandGroup, defineCommand } from '../command.js';
import type { CliIO } from '../command.js';
import { table } from '../progress.js';

/** The samples a logic is checked on: {0, 1} for the Boolean algebra, else a grid of [0,1] plus seeded draws. */
function samplesFor(A: HeytingAlgebra<number>, random: number, seed: number): number[] {
  return A.name === 'boolean' ? [0, 1] : unitSamples(random, seed);
}

function printReport(r: LawReport, io: CliIO): void {
  io.out(`${r.title}\n`);
  io.out(
    `checked on ${r.samples} sample truth values (all tuples); Heyting algebra: ${r.heyting ? 'yes' : 'no'}, residuated: ${r.residuated ? 'yes' : 'no'}, Boolean: ${r.boolean ? 'yes' : 'no'}\n\n`,
  );
  io.out(
    table(
      ['law', 'statement', 'kind', 'holds', 'counterexample'],
      r.results.map((x) => [
        x.name,
        x.statement,
        x.level,
        x.holds ? 'yes' : 'NO',
        x.counterexample
          ? `${Object.entries(x.counterexample.values)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}: ${x.counterexample.detail}`
          : '',
      ]),
    ) + '\n',
  );
}

const laws = defineCommand({
  name: 'laws',
  summary: 'check the lattice, Heyting, residuation and Boolean laws of a logic on [0,1] on samples',
  usage: 'paralens logic laws --algebra godel|boolean|lukasiewicz|product|kleene-dienes|all [--samples N] [--seed N] [--json]',
  description: `Tests every law (lattice laws, distributivity, the Heyting adjunction a ∧ x ≤ b ⇔ x ≤ (a ⇒ b),
a ⇒ a = ⊤, modus ponens, ¬a = a ⇒ ⊥, a ∧ ¬a = ⊥, residuation a ⊗ x ≤ b ⇔ x ≤ (a ⇒ b), and the Boolean
laws a ∨ ¬a = ⊤, ¬¬a = a) on all tuples of sample truth values (the grid 0, 0.1, …, 1 plus seeded random
values; {0,1} for boolean) and reports each with pass/fail and a counterexample. Sampling can refute a
law, not prove it. kleene-dienes is seed 000's p ⇒ q = max(1−p, q): not a Heyting implication.`,
  flags: {
    algebra: { type: 'string', help: 'the logic', default: 'godel', choices: [...truthAlgebraNames(), 'all'] },
    samples: { type: 'int', help: 'random sample values added to the grid', default: 5, range: 'nonnegative' },
    seed: { type: 'int', help: 'random seed for the samples', default: 0 },
  },
  async run(flags, io) {
    const names = flags.algebra === 'all' ? truthAlgebraNames() : [String(flags.algebra)];
    const reports = names.map((n) => {
      const A = truthAlgebra(n);
      return checkLaws(A, samplesFor(A, flags.samples, flags.seed));
    });
    if (flags.json) {
      io.out(JSON.stringify(flags.algebra === 'all' ? { algebras: reports } : reports[0]) + '\n');
      return 0;
    }
    reports.forEach((r, i) => {
      if (i) io.out('\n');
      printReport(r, io);
    });
    return 0;
  },
});

const evaluate = defineCommand({
  name: 'eval',
  summary: 'evaluate ∧, ∨, ⇒, ¬, ⊗ of every logic at two truth values',
  usage: 'paralens logic eval --a X --b Y [--algebra NAME|all] [--json]',
  description: `Evaluates the operators of each logic at truth values a and b (numbers in [0,1]; 0 or 1 for boolean).
A value outside the logic's truth values is an error (exit 2) naming it.`,
  flags: {
    a: { type: 'number', help: 'truth value a', default: 0.8 },
    b: { type: 'number', help: 'truth value b', default: 0.3 },
    algebra: { type: 'string', help: 'the logic', default: 'all', choices: [...truthAlgebraNames(), 'all'] },
  },
  async run(flags, io) {
    const a = flags.a,
      b = flags.b;
    const algebras =
      flags.algebra === 'all'
        ? truthAlgebras.filter((A) => A.name !== 'boolean' || ((a === 0 || a === 1) && (b === 0 || b === 1)))
        : [truthAlgebra(String(flags.algebra))];
    const rows = algebras.map((A) => ({
      algebra: A.name,
      meet: A.meet(a, b),
      join: A.join(a, b),
      implies: A.implies(a, b),
      not_a: A.not(a),
      tensor: A.tensor(a, b),
      implies_aa: A.implies(a, a),
    }));
    if (flags.json) io.out(JSON.stringify({ a, b, operators: rows }) + '\n');
    else
      io.out(
        table(
          ['logic', 'a ∧ b', 'a ∨ b', 'a ⇒ b', '¬a', 'a ⊗ b', 'a ⇒ a'],
          rows.map((r) =>
            [r.algebra, r.meet, r.join, r.implies, r.not_a, r.tensor, r.implies_aa].map((v) => (typeof v === 'number' ? String(Number(v.toPrecision(6))) : v)),
          ),
        ) + '\n',
      );
    return 0;
  },
});

export const command = commandGroup({
  name: 'logic',
  summary: 'the internal logic of Ω: Heyting algebras and residuated logics on [0,1], checked law by law',
  usage: 'paralens logic laws|eval [flags]',
  description: `Truth values of the subobject classifier Ω = [0,1]: the Gödel algebra (its Heyting algebra), the Boolean
algebra {0,1}, the residuated Łukasiewicz and product logics, and seed 000's Kleene–Dienes operators.`,
  subcommands: [laws, evaluate],
});
