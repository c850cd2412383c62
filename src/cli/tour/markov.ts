import { linePlot, bandPlot } from '../../draw/plot.js';
import { builtInData } from '../../data/registry.js';
import { bernoulliK, comonoidLaws, copyNaturality, deterministic, kernel } from '../../markov/index.js';
import { UNCERTAINTY_METHODS, bayesDemo, exercise2, gapReport, uncertaintyReport } from '../../experiments/markov/index.js';
import { dropout } from '../../nn/index.js';
import type { GapReport, UncertaintyReport } from '../../experiments/markov/index.js';
import { makeCtx } from '../../para/para.js';
import { Rng } from '../../random/rng.js';
import { Tensor } from '../../tensor/tensor.js';
import { fmt, table } from '../progress.js';
import type { Figure, TourSection } from './section.js';

export const section: TourSection = {
  id: 'markov',
  title: 'Markov categories: stochastic morphisms, dropout, Bayesian layers',
  async run({ seed }) {
    const lines: string[] = [];
    const figures: Figure[] = [];

    // comonoid structure and the deterministic/stochastic distinction
    const laws = comonoidLaws(
      kernel<null, number[]>('randn(3)', (_a, rng) => [rng.normal(), rng.normal(), rng.normal()]),
      200,
      new Rng(seed),
    );
    const detCopy = copyNaturality(
      deterministic<number, number>('x ↦ 2x', (x) => 2 * x),
      1,
      2000,
      new Rng(seed + 1),
    );
    const coinCopy = copyNaturality(bernoulliK, 0.5, 2000, new Rng(seed + 2));
    lines.push(`Comonoid laws of copy/discard on 200 samples: ${laws.map((l) => `${l.law} ${l.agreed}/${l.n}`).join(', ')}`);
    lines.push(`Copy commutes with f (Δ∘f = (f⊗f)∘Δ) on ${fmt(detCopy * 100, 3)}% of draws for deterministic f, ${fmt(coinCopy * 100, 3)}% for a fair coin`);

    // the dropout lens: one forward and its pullback
    const x = Tensor.of([1, 2, 3, 4, 5, 6, 7, 8], [1, 8]);
    const lens = dropout(0.5)
      .at([8])
      .forward([], x, makeCtx({ training: true, rng: new Rng(seed) }));
    const dx = lens.pullback(Tensor.full([1, 8], 1), []);
    lines.push('');
    lines.push('dropout(0.5) as a stochastic lens (training mode; the pullback reuses the forward mask):');
    lines.push(
      table(
        ['', ...Array.from({ length: 8 }, (_, i) => `u${i + 1}`)],
        [
          ['x', ...Array.from(x.data)],
          ['y = x⊙m/(1−p)', ...Array.from(lens.y.data)],
          ['dx for dy = 1', ...Array.from(dx.data)],
        ],
      ),
    );
    lines.push(`evaluation mode: dropout(0.5) is the identity → ${Array.from(dropout(0.5).run([], x).data).join(' ')}`);

    // exercise 2
    const ex = exercise2({ p: 0.2, epochs: 3000, seed });
    const at = [25, 100, 500, 1000, 2000, 3000];
    // mean training loss over the 25 epochs ending at epoch e (one epoch is only four per-sample steps)
    const window = (c: number[], e: number): number => c.slice(e - 25, e).reduce((s, v) => s + v, 0) / 25;
    lines.push('');
    lines.push(`Exercise 2: ${ex.stochasticSpec} on XOR vs the same without dropout`);
    lines.push('per-sample SGD lr 0.5, MSE; training loss (masks sampled), mean over the 25 epochs up to each epoch, side by side:');
    lines.push(
      table(
        ['epoch', ...at.map(String)],
        [
          ['with dropout(0.2)', ...at.map((e) => fmt(window(ex.stochastic, e)))],
          ['no dropout', ...at.map((e) => fmt(window(ex.deterministic, e)))],
        ],
      ),
    );
    lines.push(
      `  evaluation-mode MSE after 3000 epochs: with dropout ${fmt(ex.evalLoss.stochastic)}, without ${fmt(ex.evalLoss.deterministic)}; predictions with dropout ${ex.predictions.stochastic.map((v) => fmt(v, 3)).join(' ')}`,
    );
    // mean training loss over blocks of 25 epochs (one epoch is only four per-sample steps)
    const blocks = (c: number[]): number[] =>
      Array.from({ length: Math.floor(c.length / 25) }, (_, b) => c.slice(25 * b, 25 * b + 25).reduce((s, v) => s + v, 0) / 25);
    const bx = blocks(ex.stochastic).map((_, b) => 25 * b + 13);
    figures.push({
      caption:
        'Exercise 2: XOR training loss (mean over blocks of 25 epochs, log scale) with and without a dropout lens between the two Para layers. What to see: with dropout the training loss stays higher and noisier — the masks keep perturbing the net.',
      svg: linePlot(
        [
          { name: 'with dropout(0.2)', values: blocks(ex.stochastic), x: bx },
          { name: 'no dropout', values: blocks(ex.deterministic), x: bx },
        ],
        { title: 'XOR training loss', log: true, ylabel: 'MSE (25-epoch mean)' },
      ),
    });

    // the seed's Bayesian demo
    const demo = bayesDemo(1000, seed);
    lines.push('');
    lines.push(`Bayesian layer (seed demo): ${demo.model} on x = (${demo.x.join(', ')}), 1000 weight draws:`);
    lines.push(`  mean ${fmt(demo.mean)} ± ${fmt(demo.stdError, 2)} (s.e.), std ${fmt(demo.std)}   (seed 000 printed mean 0.7169, std 0.0660)`);

    // uncertainty away from the data
    const gaps: GapReport[] = (['mc-dropout', 'bayes'] as const).map((m) => gapReport(m, { seed, samples: 100 }));
    lines.push('');
    lines.push('1-D regression y = sin x + ε, training x in [−4,−2] ∪ [2,4]; mean predictive std (100 samples):');
    lines.push(
      table(
        ['method', 'near data', 'gap |x|≤1', 'beyond |x|≥5', 'away / near'],
        gaps.map((g) => [g.method, fmt(g.near), fmt(g.gap), fmt(g.beyond), fmt(g.away / g.near, 3)]),
      ),
    );
    for (const g of gaps) {
      figures.push({
        caption: `${g.method}: predictive mean ± 2 std on the gap regression y = sin x + ε, trained on x ∈ [−4,−2] ∪ [2,4]. What to see: whether the band widens in the gap |x| ≤ 1 and beyond |x| ≥ 5, away from the training points.`,
        svg: bandPlot(g.curve.x, g.curve.mean, g.curve.std, {
          title: `${g.method}: mean ± 2σ`,
          points: g.train.x.map((xi, i) => ({ x: xi, y: g.train.y[i]! })),
        }),
      });
    }

    const reports: UncertaintyReport[] = [];
    for (const name of ['moons', 'iris'])
      for (const m of UNCERTAINTY_METHODS) reports.push(uncertaintyReport(builtInData(name, seed), m, { seed, samples: 100 }));
    lines.push('');
    lines.push('Held-out calibration (70/30 split, standardised; MC methods 100 samples; std out = 200 points ≥ 1 unit from the data):');
    lines.push(
      table(
        ['data', 'method', 'accuracy', 'NLL', 'ECE (15 bins)', 'std in', 'std out'],
        reports.map((r) => [r.data, r.method, fmt(r.accuracy), fmt(r.nll), fmt(r.ece), fmt(r.stdIn), fmt(r.stdOut)]),
      ),
    );

    return {
      lines,
      figures,
      data: {
        comonoid_laws: laws,
        copy_naturality: { deterministic: detCopy, coin: coinCopy },
        dropout_lens: { x: Array.from(x.data), y: Array.from(lens.y.data), dx: Array.from(dx.data) },
        exercise2: {
          stochastic_spec: ex.stochasticSpec,
          deterministic_spec: ex.deterministicSpec,
          loss_25_epoch_mean_at: Object.fromEntries(at.map((e) => [e, { stochastic: window(ex.stochastic, e), deterministic: window(ex.deterministic, e) }])),
          eval_loss: ex.evalLoss,
        },
        bayes_demo: { mean: demo.mean, std: demo.std, std_error: demo.stdError },
        gap_regression: gaps.map(({ curve: _c, train: _t, ...g }) => g),
        calibration: reports,
      },
      summary: [
        ['stochastic morphism = Markov kernel', 'Kernel, thenK, tensorK — src/markov/kernel.ts'],
        ['copy / discard comonoid', 'copyK, discardK, comonoidLaws'],
        ['dropout = stochastic lens (mask shared by F and F*)', 'dropout(p) — src/nn/markov/dropout.ts'],
        ['Bayesian weights W ~ N(μ, σ²)', 'bayes_dense(in,out), trainElbo (Bayes by backprop)'],
        ['epistemic uncertainty = MC spread', 'mcPredict, expectation, uncertaintyReport'],
      ],
    };
  },
};
