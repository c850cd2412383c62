import { moons } from '../../data/generated.js';
import { iris } from '../../data/registry.js';
import { distill, verdicts } from '../../experiments/natural/distill.js';
import type { DistillReport, MeanSpread } from '../../experiments/natural/distill.js';
import { exercise4 } from '../../experiments/natural/bit-flip-naturality.js';
import { matrixPlot } from '../../draw/plot.js';
import { hintNaturality } from '../../experiments/natural/hint-naturality.js';
import type { NaturalityReport } from '../../natural/naturality.js';
import { fmt, table } from '../progress.js';
import type { TourSection } from './section.js';

const ms = (m: MeanSpread): string => `${fmt(m.mean, 3)} ± ${fmt(m.std, 2)}`;
const natRows = (before: NaturalityReport[] | undefined, after: NaturalityReport[]) =>
  after.map((q, i) => [q.arrow, ...(before ? [fmt(before[i]!.defect, 3)] : []), fmt(q.defect, 3), fmt(q.relative, 3)]);

export const section: TourSection = {
  id: 'natural',
  title: 'Natural transformations: learned adapters, naturality, distillation',
  async run({ seed }) {
    const lines: string[] = [];
    const e = exercise4({ seed });
    lines.push(`Exercise 4: learn η = adapter(4,2) from the XOR teacher's 4-dim hidden layer to a 2-dim target P·h (P a random projection)`);
    lines.push(
      `  teacher MSE ${fmt(e.teacherLoss)}; adapter loss ${fmt(e.lossBefore)} before → ${fmt(e.lossAfter)} after ${e.steps} SGD steps through its pullback`,
    );
    lines.push(
      `  Spearman ρ of the 6 pairwise distances of the XOR inputs: η(h) vs target ${fmt(e.rankCorrelationTarget, 3)}; η(h) vs teacher hidden ${fmt(e.rankCorrelationBefore, 3)} before → ${fmt(e.rankCorrelationAfter, 3)} after (the target itself: ${fmt(e.rankCorrelationTeacherTarget, 3)})`,
    );
    lines.push('  naturality defect mean‖G(f)∘η − η∘F(f)‖ along the arrows of the input category:');
    lines.push(table(['arrow f', 'before', 'after', 'after (relative)'], natRows(e.naturalityBefore, e.naturalityAfter)));

    const runs: [string, DistillReport][] = [
      ['iris', distill(iris(), { seeds: 5, seed })],
      ['moons', distill(moons(200, 0.1, seed), { seeds: 5, seed })],
    ];
    lines.push('');
    lines.push(`Knowledge distillation (held-out accuracy, mean ± sd over 5 seeds; T = 4, α = 0.9, hint β = 1):`);
    lines.push(
      table(
        ['data', 'teacher', '(a) student alone', '(b) Hinton KD', '(c) KD + hint via η', 'verdict (b), (c)'],
        runs.map(([name, r]) => {
          const v = verdicts(r);
          return [name, ms(r.summary.teacher), ms(r.summary.alone), ms(r.summary.distilled), ms(r.summary.hinted), `${v[0]!.verdict}; ${v[1]!.verdict}`];
        }),
      ),
    );
    lines.push(`  teacher ${runs[0]![1].teacher}, student ${runs[0]![1].student} (on iris)`);
    const hn = hintNaturality(runs[0]![1].last);
    lines.push(`  naturality of the learned hint η: student hidden ⇒ teacher hidden (iris, last seed):`);
    lines.push(table(['arrow f', 'defect', 'relative'], natRows(undefined, hn)));
    const arrows = e.naturalityBefore.map((r) => r.arrow);
    const figures = [
      {
        caption:
          'Exercise 4: the naturality defect ‖G(f)∘η − η∘F(f)‖ of the adapter η along each arrow f of the input category, before and after learning η. What to see: the bottom row is paler where the top row is dark — learning η makes the squares commute more nearly (the identity commutes exactly: 0, the palest).',
        svg: matrixPlot([e.naturalityBefore.map((r) => r.defect), e.naturalityAfter.map((r) => r.defect)], {
          title: 'naturality defect (log colour scale)',
          rowLabels: ['before', 'after'],
          colLabels: arrows,
          cell: 56,
          label: '‖G(f)∘η − η∘F(f)‖',
          log: true, // the defects span four decades: on a linear scale one large one leaves the rest white
        }),
      },
      {
        caption:
          'Distillation, held-out accuracy (mean over 5 seeds): teacher, student alone, Hinton KD, KD + hint through η. What to see: whether the distilled columns beat the student alone (the numbers are in the cells).',
        svg: matrixPlot(
          runs.map(([, r]) => [r.summary.teacher, r.summary.alone, r.summary.distilled, r.summary.hinted].map((m) => m.mean)),
          { title: 'held-out accuracy', rowLabels: runs.map(([n]) => n), colLabels: ['teacher', 'alone', 'KD', 'KD+hint'], cell: 64, label: 'accuracy' },
        ),
      },
    ];
    return {
      lines,
      figures,
      data: {
        exercise4: e,
        distillation: Object.fromEntries(
          runs.map(([n, r]) => [n, { summary: r.summary, runs: r.runs, verdicts: verdicts(r), teacher: r.teacher, student: r.student }]),
        ),
        hint_naturality: hn,
      },
      summary: [
        ['representation = functor (inputs, transformations) → feature spaces', 'representationFunctor() — src/natural'],
        ['natural transformation η: F ⇒ G = adapter', 'adapter(p,q), checkAdapter()'],
        ['naturality square G(f)∘η = η∘F(f), measured', 'naturalityDefect()'],
        ['distillation = soft targets through a loss lens', 'distillationLoss(T, α), distill()'],
      ],
    };
  },
};
