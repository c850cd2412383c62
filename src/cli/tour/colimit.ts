import { fisherIrisFeatures } from '../../experiments/colimit/fisher-iris.js';
import { kMeans } from '../../colimit/kmeans.js';
import { scatterPlot } from '../../draw/plot.js';
import { permuteSets } from '../../colimit/permute.js';
import { pool } from '../../nn/colimit/pool.js';
import { compareOnSets } from '../../experiments/colimit/set-experiment.js';
import { blobCentres, blobs } from '../../data/generated.js';
import { iris } from '../../data/registry.js';
import { Tensor } from '../../tensor/tensor.js';
import { fmt, table } from '../progress.js';
import type { TourSection } from './section.js';

/** A column name as an axis name: petal_length → petal length (cm), the unit of the UCI file. */
const axisName = (column: string): string => `${column.replace(/_/g, ' ')} (cm)`;

export const section: TourSection = {
  id: 'colimit',
  title: 'Colimits and invariance: pooling, DeepSets, k-means',
  async run({ seed }) {
    const lines: string[] = [];
    // the seed's demo: sum pooling is the same on any ordering of the set
    const set = Tensor.from([
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
    ]);
    const shuffled = permuteSets(set, seed + 1);
    const s1 = pool('sum').run([], set),
      s2 = pool('sum').run([], shuffled);
    lines.push(
      `sum_pool({(1,2),(3,4),(5,6)}) = (${Array.from(s1.data).join(', ')}); on the order ${JSON.stringify(shuffled.toArray()).slice(1, -1)} it is (${Array.from(s2.data).join(', ')})`,
    );

    const ds = compareOnSets({ seed, trainSets: 1200, testSets: 600, epochs: 30 });
    const row = (name: string, m: typeof ds.deepsets) => [name, m.parameters, fmt(m.testAccuracy), fmt(m.invarianceDefect, 3)];
    lines.push('');
    lines.push(
      `DeepSets vs MLP on padded sets: is the majority of 1..${ds.maxSize} points inside a disc? (${ds.trainSets} training / ${ds.testSets} held-out sets, Adam, 30 epochs)`,
    );
    lines.push(
      table(
        ['model', 'params', 'held-out acc', 'invariance defect'],
        [row('DeepSets  map(φ) >> masked_mean_pool >> ρ', ds.deepsets), row('MLP on the zero-padded concatenation', ds.mlp)],
      ),
    );

    const b = blobs(150, 3, 0.5, seed);
    const kb = kMeans(b.x, { k: 3, seed });
    const truth = blobCentres(3);
    const matched = truth.map((c) =>
      kb.centroids.reduce((best, m) => (Math.hypot(m[0]! - c[0]!, m[1]! - c[1]!) < Math.hypot(best[0]! - c[0]!, best[1]! - c[1]!) ? m : best)),
    );
    lines.push('');
    lines.push(`k-means (k-means++, 10 restarts) on three blobs: inertia ${fmt(kb.inertia)}, ${kb.iterations} Lloyd iterations`);
    lines.push(
      table(
        ['true centre', 'centroid (colimit of its cluster)', 'distance'],
        truth.map((c, i) => [
          `(${c.map((v) => fmt(v, 3)).join(', ')})`,
          `(${matched[i]!.map((v) => fmt(v, 3)).join(', ')})`,
          fmt(Math.hypot(matched[i]![0]! - c[0]!, matched[i]![1]! - c[1]!), 3),
        ]),
      ),
    );
    const ki = kMeans(iris().x, { k: 3, seed });
    const kf = kMeans(fisherIrisFeatures(iris().x), { k: 3, seed });
    lines.push(
      `k-means on raw Iris, k = 3: inertia ${fmt(ki.inertia, 6)} (UCI file), ${fmt(kf.inertia, 6)} with Fisher's values in rows 35 and 38 (scikit-learn: 78.85); sizes ${ki.sizes.join('/')}`,
    );
    const points = Array.from({ length: b.x.batch }, (_, i) => [b.x.data[2 * i]!, b.x.data[2 * i + 1]!]);
    const irisPetals = Array.from({ length: 150 }, (_, i) => [iris().x.data[4 * i + 2]!, iris().x.data[4 * i + 3]!]);
    const figures = [
      {
        caption:
          'k-means on three blobs. Each point is coloured by the cluster it is sent to (the universal morphism); each cross is a centroid, the colimit — the average — of its cluster. What to see: the three crosses sit in the middle of the three blobs.',
        svg: scatterPlot(points, kb.assignments, { title: 'k-means, three blobs', centres: kb.centroids, classNames: ['cluster 1', 'cluster 2', 'cluster 3'] }),
      },
      {
        caption:
          'k-means on raw Iris (k = 3, all four features), drawn on petal length and width with the centroids projected. What to see: setosa (small petals) is one cluster on its own; the other two clusters split versicolor and virginica where their petals overlap.',
        svg: scatterPlot(irisPetals, ki.assignments, {
          title: 'k-means, Iris',
          xlabel: axisName(iris().featureNames?.[2] ?? 'petal length'),
          ylabel: axisName(iris().featureNames?.[3] ?? 'petal width'),
          centres: ki.centroids.map((c) => [c[2]!, c[3]!]),
          classNames: ['cluster 1', 'cluster 2', 'cluster 3'],
        }),
      },
    ];
    return {
      lines,
      figures,
      data: {
        sum_pool: { original: Array.from(s1.data), permuted: Array.from(s2.data) },
        deepsets: ds,
        kmeans_blobs: { inertia: kb.inertia, centroids: kb.centroids, true_centres: truth, iterations: kb.iterations },
        kmeans_iris: { inertia_uci: ki.inertia, inertia_fisher: kf.inertia, sizes: ki.sizes },
      },
      summary: [
        ['sum pooling = coproduct-induced map, invariant under Sₙ', 'pool("sum"), sum_pool — src/colimit'],
        ['sets of different sizes = masked sets [n, d+1]', 'masked_sum/mean/max_pool, masked_map'],
        ['DeepSets = ρ ∘ colimit ∘ map(φ)', 'deepSets(), map(f) >> pool >> ρ'],
        ['k-means: assignment = universal morphism, centroid = colimit', 'kMeans(), assignPoints, updateCentres'],
      ],
    };
  },
};
