import { xor } from '../../data/generated.js';
import { iris } from '../../data/registry.js';
import { asciiSubobject, boundaryPlot, decisionBoundary, sampleGrid } from '../../topos/gluing/boundary.js';
import { heatMap, matrixPlot } from '../../draw/plot.js';
import { sheafEnsembleStudy } from '../../experiments/topos/ensemble-study.js';
import { checkLaws, unitSamples } from '../../topos/logic/laws.js';
import { truthAlgebras } from '../../topos/logic/by-name.js';
import { characteristicMorphism, subobject } from '../../topos/gluing/subobject.js';
import { seedGluingDemo } from '../../topos/gluing/seed-experts.js';
import { exercise3Lines } from '../commands/sheaf.js';
import { fmt, table } from '../progress.js';
import { trainedXor, XOR_SPEC } from './para.js';
import type { TourSection } from './section.js';

const BOUNDS = { x0: -0.25, x1: 1.25, y0: -0.25, y1: 1.25 };

export const section: TourSection = {
  id: 'topos',
  title: 'Topos I: subobject classifier, Heyting logic, sheaf gluing',
  async run({ seed }) {
    const lines: string[] = [];
    // 1. the sigmoid output of the trained XOR network as χ: X → Ω
    const r = trainedXor(seed);
    const chi = characteristicMorphism(r.model, r.theta);
    const S = subobject(chi, xor().x, 0.5);
    const strict = subobject(chi, xor().x, 0.99);
    const boundary = decisionBoundary(chi, BOUNDS, { resolution: 81 });
    lines.push(`Subobject classifier: the trained XOR network ${XOR_SPEC} as χ: X → Ω = [0,1] (final MSE ${fmt(r.finalLoss)})`);
    lines.push(
      table(
        ['x1', 'x2', 'χ(x)', 'in S = χ⁻¹[0.5, 1]', 'in χ⁻¹[0.99, 1]'],
        [
          [0, 0],
          [0, 1],
          [1, 0],
          [1, 1],
        ].map((p, i) => [...p, fmt(S.truth[i]!), S.mask[i] ? 'yes' : 'no', strict.mask[i] ? 'yes' : 'no']),
      ),
    );
    lines.push(
      `decision boundary χ⁻¹(0.5) on [-0.25, 1.25]², 81×81 grid, marching squares: ${boundary.polylines.length} polyline(s) with ${boundary.polylines.map((p) => p.length).join(', ')} vertices`,
    );
    lines.push('the subobject S on a 31×16 grid (# in S, top row x2 = 1.25):');
    lines.push(...asciiSubobject(sampleGrid(chi, BOUNDS, 31, 16)).map((row) => `  ${row}`));

    // 2. the logic of Ω
    const [p, q] = [0.8, 0.3];
    lines.push('');
    lines.push(`Heyting logic of Ω at p = ${p}, q = ${q} (Gödel is the Heyting algebra of [0,1]; Kleene–Dienes is the seed's p ⇒ q = max(1−p, q)):`);
    lines.push(
      table(
        ['logic', 'p ∧ q', 'p ∨ q', 'p ⇒ q', '¬p', 'p ⇒ p'],
        truthAlgebras
          .filter((A) => A.name !== 'boolean')
          .map((A) => [A.name, fmt(A.meet(p, q)), fmt(A.join(p, q)), fmt(A.implies(p, q)), fmt(A.not(p)), fmt(A.implies(p, p))]),
      ),
    );
    const reports = truthAlgebras.map((A) => checkLaws(A, A.name === 'boolean' ? [0, 1] : unitSamples(5, seed)));
    lines.push('laws checked on all tuples of sample truth values (paralens logic laws --algebra NAME):');
    lines.push(
      table(
        ['logic', 'Heyting', 'residuated', 'Boolean', 'laws that fail'],
        reports.map((x) => [x.algebra, x.heyting ? 'yes' : 'no', x.residuated ? 'yes' : 'no', x.boolean ? 'yes' : 'no', x.failed.join(', ') || '—']),
      ),
    );

    // 3. sheaf gluing: the seed's demo, exercise 3, a real ensemble
    const demo = seedGluingDemo(0.1);
    lines.push('');
    lines.push(
      'Sheaf gluing at ε = 0.1 (seed demo): A 0.72 and B 0.68 ' +
        (demo.agree.glued ? `glue to ${fmt(demo.agree.section.prediction[0]!)}` : 'do not glue') +
        '; A 0.72 and C 0.30 ' +
        (demo.conflict.glued ? 'glue' : `conflict (differ by ${fmt(demo.conflict.conflict.distance)}): no global section`),
    );
    lines.push('Exercise 3: five experts, which subsets glue at ε = 0.05, 0.15, 0.5 (paralens sheaf --exercise)');
    lines.push(...exercise3Lines().map((l) => `  ${l}`));
    const study = sheafEnsembleStudy(iris(), { experts: 5, tolerance: 0.2, splits: 3, seed });
    lines.push('');
    lines.push(
      `A real ensemble: ${study.experts} experts on Iris, each on a bootstrap sample and ${study.featuresPerExpert} of 4 features, ${study.heldOut} held-out rows over ${study.splits} splits (paralens sheaf --data iris):`,
    );
    lines.push(
      `  ensemble accuracy ${fmt(study.ensembleAccuracy)}; at ε = 0.2, ${study.atTolerance.glued} rows glue with error ${fmt(study.atTolerance.errorGlued)}, ${study.atTolerance.notGlued} do not with error ${fmt(study.atTolerance.errorNotGlued)}`,
    );
    lines.push(`  AUROC of disagreement for predicting a wrong answer: ${fmt(study.auroc)} (${study.wrong} wrong answers)`);
    return {
      lines,
      data: {
        xor: { truth: Array.from(S.truth), subobject: S.members, final_loss: r.finalLoss, boundary: boundaryPlot(boundary) },
        logic: reports.map((x) => ({ algebra: x.algebra, heyting: x.heyting, residuated: x.residuated, boolean: x.boolean, failed: x.failed })),
        gluing: { seed_demo: demo },
        ensemble: study,
      },
      figures: [
        {
          caption:
            'XOR: χ = the sigmoid output over the plane, with the decision boundary χ⁻¹(0.5) traced by marching squares (black) and the four inputs (orange: in the subobject S = χ⁻¹[0.5, 1]). What to see: the boundary separates (0,1) and (1,0) from (0,0) and (1,1) — no single line could.',
          svg: heatMap(boundary.grid, {
            title: 'χ: X → Ω and χ⁻¹(0.5)',
            corners: true,
            label: 'χ(x)',
            lines: boundary.polylines,
            points: [
              [0, 0],
              [0, 1],
              [1, 0],
              [1, 1],
            ].map(([x, y], i) => ({ x: x!, y: y!, label: S.mask[i]! })),
          }),
        },
        {
          caption: `Iris ensemble: mean disagreement ‖pᵢ − pⱼ‖∞ between experts on held-out rows (first split); the sheaf condition compares overlapping contexts. What to see: the diagonal is 0, and experts that share more features disagree less.`,
          svg: matrixPlot(
            study.agreement.map((row) => row.map((v) => v ?? 0)),
            {
              title: 'expert disagreement',
              label: 'mean ‖pᵢ − pⱼ‖∞',
              lo: 0,
              rowLabels: study.contexts.map((_, k) => `E${k + 1}`),
              colLabels: study.contexts.map((_, k) => `E${k + 1}`),
            },
          ),
        },
      ],
      summary: [
        ['sigmoid output = characteristic morphism χ: X → Ω', 'characteristicMorphism, subobject — src/topos'],
        ['decision boundary = χ⁻¹(0.5)', 'decisionBoundary (marching squares)'],
        ['Ω = [0,1] with its Heyting algebra', 'godel (Heyting), booleanAlgebra; lukasiewicz, productLogic (residuated)'],
        ["seed's p ⇒ q = max(1−p, q)", 'kleeneDienes — not Heyting: checkLaws shows which laws fail'],
        ['ensemble consistency = sheaf gluing condition', 'glue, maximalConsistentSubset, sheafEnsembleStudy'],
      ],
    };
  },
};
