import { UNCERTAINTY_METHODS, CLASSIFICATION_DEFAULTS, uncertaintyReport } from '../../experiments/markov/index.js';
import type { UncertaintyMethod } from '../../experiments/markov/index.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, inputsOf, loadData } from '../data.js';
import type { Task } from '../../data/task.js';
import { fmt, isSilent, Progress } from '../progress.js';
import { backend } from '../../tensor/registry.js';
import { backendLabel } from '../../tensor/init.js';
import { spread } from './equivariant-nbody.js';
import { trainingFlags } from '../training.js';

const d = CLASSIFICATION_DEFAULTS;

export const command = defineCommand({
  name: 'uncertainty',
  summary: 'held-out accuracy, NLL, calibration and predictive std of MC dropout or a Bayesian network',
  usage: 'paralens uncertainty --data NAME --method bayes|mc-dropout|deterministic [--samples N] [--seed N] [--seeds N] [--json]',
  description: `Markov categories in practice (seed 000): a network whose forward pass is a stochastic morphism
(dropout masks, or Gaussian weights trained by Bayes by backprop) is run N times on each input and
the spread of its predictions is its uncertainty. The data set is split 70/30 (stratified, seeded) and
standardised; the command prints held-out accuracy, negative log-likelihood, expected calibration
error (15 bins), and the mean predictive standard deviation on the held-out rows (in distribution)
and on 200 points at distance ≥ 1 (standardised units) from every training input (out of distribution).
Methods: mc-dropout (ReLU network with dropout(p) after each hidden layer, kept on at prediction),
bayes (bayes_dense layers, ELBO with KL weight --kl-weight), deterministic (the plain network, std 0).
The results depend on the seed and on the backend (named in the output): --seeds N repeats the whole
run (split, initialisation, masks, weight draws) for seeds --seed … --seed+N−1 and reports every
metric as its mean and range [min, max] over them.
Data: a labelled built-in set, fashion-mnist (its 60 000 training images, with a progress line), or\nyour own CSV, NumPy or IDX files (see paralens train --help).`,
  flags: {
    ...dataFlags({ help: 'classification data set' }),
    method: { type: 'string', help: 'how uncertainty is modelled', choices: UNCERTAINTY_METHODS, default: 'bayes' },
    samples: { type: 'int', help: 'Monte Carlo forward passes per input (≥ 1)', default: 100, range: 'positive' },
    seeds: { type: 'int', help: 'repeat for this many seeds from --seed and report mean and range', default: 1, range: 'positive' },
    ...runtimeFlags,
    ...trainingFlags(['seed', 'epochs'], {
      seed: { help: 'random seed (split, initialisation, masks, weight draws)' },
      epochs: { default: d.epochs },
    }),
    hidden: { type: 'int', help: 'hidden width (two hidden ReLU layers)', default: d.hidden, range: 'positive' },
    dropout: { type: 'number', help: 'mc-dropout: drop probability p ∈ [0,1)', default: d.p, range: 'unit-open' },
    'prior-sigma': { type: 'number', help: 'bayes: prior N(0, s²) scale s > 0', default: d.priorSigma, range: 'positive' },
    sigma0: { type: 'number', help: 'bayes: initial posterior σ > 0 (default 0.05)', range: 'positive' },
    'kl-weight': { type: 'number', help: 'bayes: weight of the KL term (1 = the ELBO)', default: d.klWeight, range: 'nonnegative' },
  },
  async run(flags, io) {
    if (!flags.data) throw new UsageError(`uncertainty: --data NAME is required (${dataForms()})`);
    const samples = flags.samples,
      epochs = flags.epochs,
      hidden = flags.hidden;
    const p = flags.dropout,
      priorSigma = flags['prior-sigma'],
      sigma0 = flags.sigma0,
      klWeight = flags['kl-weight'];
    const method = flags.method;
    const seed = flags.seed;
    const data = inputsOf(
      await loadData(flags.data, {
        seed,
        dataDir: flags['data-dir'],
        target: flags.target,
        task: flags.task,
      }),
    );
    if (!data.labels) throw new UsageError(`uncertainty: ${data.name} has no class labels; the command needs a classification data set`);
    const progress = new Progress(io, 'uncertainty', isSilent(flags));
    if (!isSilent(flags) && !progress.active) io.err(`fitting ${method} on ${data.name} …\n`);
    const onEpoch = (e: number, n: number): void => progress.update(e, n, `${method} · epoch ${e}/${n}`);
    const seeds = Array.from({ length: flags.seeds }, (_, k) => seed + k);
    const runs: ReturnType<typeof uncertaintyReport>[] = [];
    for (const sd of seeds) {
      // each seed its own split; the first is the data already loaded (and checked)
      const d2 =
        sd === seed
          ? data
          : inputsOf(
              await loadData(flags.data, {
                seed: sd,
                dataDir: flags['data-dir'],
                target: flags.target,
                task: flags.task,
              }),
            );
      runs.push(uncertaintyReport(d2, method, { samples, seed: sd, epochs, hidden, p, priorSigma, sigma0, klWeight, onEpoch }));
    }
    progress.done();
    const be = backendLabel(backend());
    const r = runs[0]!;
    const ratio = (x: (typeof runs)[number]): number | undefined => (x.stdIn > 0 ? x.stdOut / x.stdIn : undefined);
    const row = (x: (typeof runs)[number]) => ({
      accuracy: x.accuracy,
      nll: x.nll,
      ece: x.ece,
      std_in: x.stdIn,
      std_out: x.stdOut,
      ...(ratio(x) !== undefined ? { out_in_ratio: ratio(x) } : {}),
    });
    if (flags.json) {
      const one = {
        data: r.data,
        method: r.method,
        model: r.model,
        samples: r.samples,
        train_rows: r.trainRows,
        test_rows: r.testRows,
        ...row(r),
        out_points: r.outRows,
        backend: be,
        seconds: runs.reduce((t, x) => t + x.seconds, 0),
      };
      if (seeds.length === 1) io.out(JSON.stringify(one) + '\n');
      else {
        const metrics = runs.map((x) => new Map(Object.entries(row(x))));
        io.out(
          JSON.stringify({
            ...one,
            seeds,
            per_seed: runs.map((x, k) => ({ seed: seeds[k], ...row(x) })),
            spread: Object.fromEntries(Object.keys(row(r)).map((key) => [key, spread(metrics.map((m) => m.get(key)!))])),
          }) + '\n',
        );
      }
      return 0;
    }
    const many = seeds.length > 1;
    const show = (f: (x: (typeof runs)[number]) => number | undefined, digits = 4): string => {
      if (!many) return fmt(f(r), digits);
      const v = spread(runs.map((x) => f(x)!));
      return `${fmt(v.mean, digits)} [${fmt(v.min, digits)}, ${fmt(v.max, digits)}]`;
    };
    io.out(`data        ${r.data} (${r.trainRows} training rows, ${r.testRows} held-out rows, standardised)\n`);
    io.out(`method      ${r.method}${r.method === 'deterministic' ? '' : ` (${r.samples} Monte Carlo samples)`}\n`);
    io.out(`model       ${r.model}\n`);
    io.out(`backend     ${be}\n`);
    if (many) io.out(`seeds       ${seeds[0]}–${seeds[seeds.length - 1]}: mean [min, max] over ${seeds.length} runs\n`);
    io.out(`accuracy    ${show((x) => x.accuracy)}  (held out)\n`);
    io.out(`NLL         ${show((x) => x.nll)}  (mean −log p(label), held out)\n`);
    io.out(`ECE         ${show((x) => x.ece)}  (15 bins, held out)\n`);
    io.out(`std in      ${show((x) => x.stdIn)}  (mean predictive std on the held-out rows)\n`);
    io.out(`std out     ${show((x) => x.stdOut)}  (on ${r.outRows} points ≥ 1 standardised unit from every training input)\n`);
    if (runs.every((x) => x.stdIn > 0)) {
      io.out(`out / in    ${show(ratio, 3)}\n`);
      if (many) io.out(`            per seed: ${runs.map((x, k) => `${seeds[k]}: ${fmt(ratio(x), 3)}`).join(', ')}\n`);
    }
    io.out(
      `time        ${fmt(
        runs.reduce((t, x) => t + x.seconds, 0),
        3,
      )} s\n`,
    );
    return 0;
  },
});
