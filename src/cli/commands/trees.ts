import { runTreeTask, TEST_SETS } from '../../experiments/recurrent/tree-task.js';
import type { TreeTaskResult } from '../../experiments/recurrent/tree-task.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { fmt, isSilent, table } from '../progress.js';

/** mean ± half the range over seeds. */
const spread = (xs: readonly number[]): { mean: number; min: number; max: number } => ({
  mean: xs.reduce((a, b) => a + b, 0) / xs.length,
  min: Math.min(...xs),
  max: Math.max(...xs),
});

export const command = defineCommand({
  name: 'trees',
  summary: 'a recursive network (a fold over expression trees) vs a sequence LSTM, trained on depth ≤ 4, tested on depth 5–7',
  usage: 'paralens trees [--seeds N] [--epochs N] [--train N] [--test N] [--json]',
  description: `Propositional formulas over 0 and 1 with ¬, ∧, ∨ and ⊕ (a seeded generator) are trees of the polynomial
functor P(X) = 2 + X + 3·X²; the task is the formula's truth value. Two models learn it from formulas of
depth 1–4: the fold of a P-algebra (one small network dense >> tanh >> dense >> tanh per connective, a
linear readout of the root's state — the recursive network as a catamorphism, src/nn/recurrent/polynomial.ts)
and a sequence LSTM reading the formula written out with parentheses (embedding >> fold(lstm_cell) >> dense).
Both: Adam, lr 0.003, batches of 32. Reported: accuracy on fresh formulas of depth ≤ 4 and of depths 5, 6
and 7, which neither model saw; with --seeds N, each seed's run and the mean and range (docs/recurrent.md).`,
  flags: {
    ...runtimeFlags,
    seeds: { type: 'int', help: 'runs with seeds 0 … N−1 (data, initialisation, batches)', default: 3, range: 'positive' },
    epochs: { type: 'int', help: 'epochs over the training formulas', default: 30, range: 'positive' },
    train: { type: 'int', help: 'training formulas (depths 1–4)', default: 4000, range: 'positive' },
    test: { type: 'int', help: 'formulas in each test set', default: 500, range: 'positive' },
  },
  async run(flags, io) {
    const seeds = flags.seeds;
    const silent = isSilent(flags);
    const runs: TreeTaskResult[][] = [];
    for (let seed = 0; seed < seeds; seed++) {
      runs.push(
        runTreeTask({
          seed,
          epochs: flags.epochs,
          train: flags.train,
          test: flags.test,
          onEpoch: (m, e, n, loss) => {
            if (!silent) io.err(`seed ${seed}: ${m} epoch ${e}/${n}, loss ${fmt(loss)}\n`);
          },
        }),
      );
    }
    const models = runs[0]!.map((r, i) => ({
      model: r.model,
      spec: r.spec,
      parameters: r.parameters,
      accuracy: Object.fromEntries(TEST_SETS.map((t) => [t, spread(runs.map((run) => run[i]!.accuracy[t]))])),
      runs: runs.map((run) => run[i]!.accuracy),
      seconds: runs.reduce((s, run) => s + run[i]!.seconds, 0),
    }));
    const truth = Object.fromEntries(TEST_SETS.map((t) => [t, spread(runs.map((run) => run[0]!.truth[t]))]));
    if (flags.json) {
      io.out(JSON.stringify({ seeds, epochs: flags.epochs, train: flags.train, test: flags.test, true_fraction: truth, models }) + '\n');
      return 0;
    }
    const cell = (a: { mean: number; min: number; max: number }): string => `${fmt(a.mean, 3)} (${fmt(a.min, 3)}–${fmt(a.max, 3)})`;
    io.out(
      table(
        ['model', 'params', ...TEST_SETS],
        [
          ...models.map((m) => [m.model, m.parameters, ...TEST_SETS.map((t) => cell(m.accuracy[t]!))]),
          ['(true formulas)', '', ...TEST_SETS.map((t) => cell(truth[t]!))],
        ],
      ) + `\n\naccuracy, mean (range) over ${seeds} seed${seeds > 1 ? 's' : ''}\n`,
    );
    for (const m of models) io.out(`${m.model.padEnd(14)} ${m.spec}\n`);
    return 0;
  },
});
