import { compareOnSets } from '../../colimit/set-experiment.js';
import type { Command } from '../command.js';
import { fmt, table } from '../progress.js';

export const command: Command = {
  name: 'deepsets',
  summary: 'DeepSets vs an MLP on a generated set task: accuracy and permutation invariance',
  usage: 'paralens deepsets [--seed N] [--epochs N] [--train-sets N] [--test-sets N] [--max-size N]',
  description: `Generates sets of 1..max-size points in [-2,2]² (label: more than half the points lie inside the
disc of radius √(8/π), which a uniform point hits with probability ½), stored as masked sets
[n, 3] = (x1, x2, mask). Trains DeepSets — masked_map(φ) >> masked_mean_pool >> ρ, pooling as a
colimit — and an MLP on the zero-padded concatenation, with the same optimiser and data, and reports
held-out accuracy and the permutation-invariance defect (mean |σ(f(πx)) − σ(f(x))| over held-out
sets and 5 random permutations each).`,
  flags: {
    seed: { type: 'int', help: 'random seed (sets, initialisation, shuffling)', default: 0 },
    epochs: { type: 'int', help: 'training epochs', default: 40, range: 'positive' },
    'train-sets': { type: 'int', help: 'training sets', default: 2000, range: 'positive' },
    'test-sets': { type: 'int', help: 'held-out sets', default: 1000, range: 'positive' },
    'max-size': { type: 'int', help: 'largest set size (slots per set)', default: 12, range: 'positive' },
  },
  async run(flags, _pos, io) {
    const r = compareOnSets({
      seed: flags.seed as number,
      epochs: flags.epochs as number,
      trainSets: flags['train-sets'] as number,
      testSets: flags['test-sets'] as number,
      maxSize: flags['max-size'] as number,
    });
    if (flags.json) {
      io.out(JSON.stringify({ task: 'disc-majority-sets', train_sets: r.trainSets, test_sets: r.testSets, max_size: r.maxSize, deepsets: r.deepsets, mlp: r.mlp }) + '\n');
      return 0;
    }
    io.out(`task: disc majority, sets of 1..${r.maxSize} points; ${r.trainSets} training / ${r.testSets} held-out sets\n\n`);
    const row = (name: string, m: typeof r.deepsets) => [name, m.parameters, fmt(m.trainAccuracy), fmt(m.testAccuracy), fmt(m.invarianceDefect, 3), fmt(m.seconds, 3)];
    io.out(table(['model', 'params', 'train acc', 'held-out acc', 'invariance defect', 'seconds'], [row('DeepSets', r.deepsets), row('MLP (padded)', r.mlp)]) + '\n\n');
    io.out(`DeepSets  ${r.deepsets.spec}\nMLP       ${r.mlp.spec}\n`);
    return 0;
  },
};
