import { RangeArgError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';
import { oneHot } from './dataset.js';
import type { Dataset } from './dataset.js';

/** The four XOR points with targets [N,1] (seed 000's first demo). */
export function xor(): Dataset {
  const labels = Int32Array.from([0, 1, 1, 0]);
  return {
    name: 'xor',
    x: Tensor.from([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ]),
    y: Tensor.of(labels, [4, 1]),
    labels,
    classes: ['0', '1'],
    featureNames: ['x1', 'x2'],
  };
}

function classification(name: string, pts: number[][], labels: number[], k: number, binaryTargets: boolean): Dataset {
  const lab = Int32Array.from(labels);
  return {
    name,
    x: Tensor.from(pts),
    y: binaryTargets && k === 2 ? Tensor.of(lab, [lab.length, 1]) : oneHot(lab, k),
    labels: lab,
    classes: Array.from({ length: k }, (_, i) => String(i)),
    featureNames: pts[0]!.map((_, j) => `x${j + 1}`),
  };
}

function checkN(name: string, n: number): void {
  if (!(Number.isInteger(n) && n > 0)) throw new RangeArgError(`${name}: the number of points must be a positive integer, got ${n}`);
}

/** Two interleaving half circles (scikit-learn's make_moons), targets [N,1]. */
export function moons(n = 200, noise = 0.1, seed: number | Rng = 0): Dataset {
  checkN('moons', n);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const pts: number[][] = [],
    labels: number[] = [];
  const nOuter = Math.floor(n / 2);
  for (let i = 0; i < n; i++) {
    const outer = i < nOuter;
    const m = outer ? nOuter : n - nOuter;
    const t = (Math.PI * (outer ? i : i - nOuter)) / Math.max(1, m - 1);
    const p = outer ? [Math.cos(t), Math.sin(t)] : [1 - Math.cos(t), 0.5 - Math.sin(t)];
    pts.push([p[0]! + noise * rng.normal(), p[1]! + noise * rng.normal()]);
    labels.push(outer ? 0 : 1);
  }
  return classification('moons', pts, labels, 2, true);
}

/** Two concentric circles (make_circles, factor 0.5), targets [N,1]. */
export function circles(n = 200, noise = 0.05, seed: number | Rng = 0): Dataset {
  checkN('circles', n);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const pts: number[][] = [],
    labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const inner = i % 2;
    const t = 2 * Math.PI * rng.uniform();
    const r = inner ? 0.5 : 1;
    pts.push([r * Math.cos(t) + noise * rng.normal(), r * Math.sin(t) + noise * rng.normal()]);
    labels.push(inner);
  }
  return classification('circles', pts, labels, 2, true);
}

/** Two interleaved spirals, targets [N,1]. */
export function spirals(n = 200, noise = 0.05, seed: number | Rng = 0): Dataset {
  checkN('spirals', n);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const pts: number[][] = [],
    labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 2;
    const t = (Math.floor(i / 2) / Math.ceil(n / 2)) * 3 * Math.PI + 0.5;
    const s = c ? -1 : 1;
    pts.push([(s * t * Math.cos(t)) / 10 + noise * rng.normal(), (s * t * Math.sin(t)) / 10 + noise * rng.normal()]);
    labels.push(c);
  }
  return classification('spirals', pts, labels, 2, true);
}

/** k Gaussian blobs in 2-D (seed 000's k-means demo uses three), one-hot targets [N,k]. */
export function blobs(n = 150, k = 3, std = 0.5, seed: number | Rng = 0): Dataset {
  checkN('blobs', n);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const centres = blobCentres(k);
  const pts: number[][] = [],
    labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % k;
    pts.push([centres[c]![0]! + std * rng.normal(), centres[c]![1]! + std * rng.normal()]);
    labels.push(c);
  }
  return { ...classification('blobs', pts, labels, k, false), name: 'blobs' };
}

/** The centres `blobs` draws around. */
export function blobCentres(k = 3): number[][] {
  return Array.from({ length: k }, (_, c) => [4 * Math.cos((2 * Math.PI * c) / k), 4 * Math.sin((2 * Math.PI * c) / k)]);
}
