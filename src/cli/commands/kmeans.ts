import { kMeans } from '../../colimit/kmeans.js';
import { builtInDataNames } from '../../data/registry.js';
import type { Task } from '../../data/task.js';
import { DataError } from '../../errors.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { dataFlags, inputsOf, loadData, loadTable } from '../data.js';
import { fmt, isSilent, Progress, table } from '../progress.js';

/** How well clusters match known classes: the fraction of points in their cluster's majority class. */
function purity(assign: Int32Array, labels: Int32Array, k: number): number {
  let ok = 0;
  for (let c = 0; c < k; c++) {
    const counts = new Map<number, number>();
    assign.forEach((a, i) => a === c && counts.set(labels[i]!, (counts.get(labels[i]!) ?? 0) + 1));
    ok += Math.max(0, ...counts.values());
  }
  return ok / assign.length;
}

export const command = defineCommand({
  name: 'kmeans',
  summary: 'k-means clustering: centroids as colimits of their clusters',
  usage: 'paralens kmeans --data NAME|PATH|--csv FILE --k N [--target COLUMN] [--restarts N] [--seed N] [--max-iter N] [--tol X]',
  description: `Lloyd's k-means (seed 000, §Colimits): the assignment of each point to its nearest centre is the
universal morphism, each centre the mean (colimit) of its cluster. Greedy k-means++ seeding, the
lowest inertia of --restarts seedings, empty clusters repaired, float64 throughout. Uses the feature
columns of a built-in data set (${builtInDataNames().join(', ')}), of fashion-mnist, or of your own
files: a CSV (--csv FILE, or --data FILE.csv; a text last column, or the column --target names, is
read as class labels and used only to report purity; other text columns are one-hot encoded), NumPy
(.npz with x and an optional y, or .npy) or idx:DIR. Features are used as they are (not standardised).`,
  flags: {
    ...dataFlags({ help: 'points' }),
    csv: { type: 'string', help: 'CSV file of points (one row per point), whatever its name' },
    k: { type: 'int', help: 'number of clusters', range: 'positive' },
    restarts: { type: 'int', help: 'independent k-means++ seedings (the lowest inertia wins)', default: 10, range: 'positive' },
    seed: { type: 'int', help: 'random seed (data generation and seeding)', default: 0 },
    'max-iter': { type: 'int', help: 'Lloyd iterations per restart at most', default: 300, range: 'positive' },
    tol: { type: 'number', help: 'stop when Σ‖Δμ‖² ≤ tol · mean feature variance', default: 1e-4, range: 'nonnegative' },
  },
  async run(flags, io) {
    if (Boolean(flags.data) === Boolean(flags.csv)) throw new UsageError('kmeans: give exactly one of --data NAME or --csv FILE');
    if (flags.k === undefined) throw new UsageError('kmeans: --k N is required (the number of clusters)');
    const seed = flags.seed;
    const request = {
      seed,
      dataDir: flags['data-dir'],
      target: flags.target,
      task: flags.task,
      optionalTarget: true,
    };
    const ds = inputsOf(flags.csv ? loadTable(String(flags.csv), request) : await loadData(String(flags.data), request));
    if (ds.x.rank !== 2) throw new DataError(`kmeans: expects points [N,d] but ${ds.name} has inputs of rank ${ds.x.rank - 1}`);
    const k = flags.k;
    const progress = new Progress(io, 'kmeans', isSilent(flags));
    const onIteration = (r: number, n: number, i: number): void => progress.update(r - 1, n, `restart ${r}/${n} · iteration ${i}`);
    const r = kMeans(ds.x, { k, restarts: flags.restarts, seed, maxIter: flags['max-iter'], tol: flags.tol, onIteration });
    progress.done();
    const out = {
      data: ds.name,
      points: ds.x.batch,
      features: ds.x.shape[1],
      k,
      inertia: r.inertia,
      centroids: r.centroids,
      sizes: r.sizes,
      iterations: r.iterations,
      converged: r.converged,
      restart_inertias: r.restartInertias,
      purity: ds.labels ? purity(r.assignments, ds.labels, k) : undefined,
    };
    if (flags.json) {
      io.out(JSON.stringify(out) + '\n');
      return 0;
    }
    io.out(`data        ${ds.name} (${out.points} points, ${out.features} features)\n`);
    io.out(`k           ${k}, best of ${r.restartInertias.length} k-means++ restarts\n`);
    io.out(`inertia     ${fmt(r.inertia, 6)}\n`);
    io.out(`iterations  ${r.iterations}${r.converged ? '' : ' (not converged: hit --max-iter)'}\n`);
    if (out.purity !== undefined) io.out(`purity      ${fmt(out.purity)} (fraction of points in their cluster's majority class)\n`);
    const names = ds.featureNames ?? r.centroids[0]!.map((_, j) => `x${j + 1}`);
    io.out(
      '\n' +
        table(
          ['cluster', 'size', ...names],
          r.centroids.map((c, i) => [i, r.sizes[i]!, ...c.map((v) => fmt(v))]),
        ) +
        '\n',
    );
    return 0;
  },
});
