import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { describeWith, PYTHON as PY, pytorch } from '../peer/available.js';

/** Spec, per-sample input shape, and whether the input is token ids (with their range). */
const cases: [string, number[], number?][] = [
  ['embedding(7,5)', [4], 7],
  ['layernorm(6)', [3, 6]],
  ['rmsnorm(6)', [3, 6]],
  ['dense(6,4)', [3, 6]],
  ...['rope', 'relative', 'relative(2)', 'absolute(7)', 'none'].flatMap((p): [string, number[]][] => [
    [`attention(8,2,${p})`, [5, 8]],
    [`attention(8,4,${p},none)`, [5, 8]],
  ]),
  ['transformer(8,2,12,rope)', [6, 8]],
  ['embedding(9,8) >> transformer(8,2,16,rope) >> transformer(8,4,16,relative(3)) >> layernorm(8) >> dense(8,9)', [6], 9],
  ['embedding(9,8) >> transformer(8,2,16,absolute(6)) >> rmsnorm(8) >> dense(8,9)', [6], 9],
];

/** The morphism as the tree the PyTorch side interprets. */
const tree = (f: Para): unknown => ({ kind: f.kind, args: f.args, children: f.children.map(tree) });

describeWith(pytorch(), 'the text-model layers agree with PyTorch (float64)', () => {
  it('outputs, input gradients and every parameter gradient at 1e-6, on random weights', () => {
    const rng = new Rng(17);
    const randn = (shape: readonly number[]): Tensor =>
      Tensor.of(
        Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
        shape,
        'float64',
      );
    const runs = cases.map(([spec, dom, V]) => {
      const f = parseSpec(spec).at(dom);
      // random weights everywhere: position biases and tables too (their initialisers start near zero)
      const theta = f.params.map((p) => randn(p.shape));
      const x = V
        ? Tensor.of(
            Array.from({ length: 3 * dom.reduce((a, b) => a * b, 1) }, () => rng.int(V)),
            [3, ...dom],
            'float64',
          )
        : randn([3, ...dom]);
      const lens = f.forward(theta, x, makeCtx());
      const dy = randn(lens.y.shape);
      const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
      const dx = lens.pullback(dy, dTheta);
      return { spec, f, theta, x, V, y: lens.y, dy, dx, dTheta };
    });
    const payload = runs.map((r) => ({
      tree: tree(r.f),
      params: r.theta.map((t) => [Array.from(t.data), t.shape]),
      x: Array.from(r.x.data),
      xshape: r.x.shape,
      ids: Boolean(r.V),
      dy: Array.from(r.dy.data),
    }));
    const script = fileURLToPath(new URL('./transformer_torch.py', import.meta.url));
    const ref = JSON.parse(
      execFileSync(PY, [script], { input: JSON.stringify(payload), maxBuffer: 1 << 26, env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString(),
    );
    const near = (a: ArrayLike<number>, b: number[], what: string): void => {
      expect(a.length, what).toBe(b.length);
      for (let j = 0; j < b.length; j++) expect(Math.abs(a[j]! - b[j]!), `${what}[${j}]: ${a[j]} vs ${b[j]}`).toBeLessThan(1e-6 * (1 + Math.abs(b[j]!)));
    };
    runs.forEach((r, i) => {
      const t = ref[i];
      near(r.y.data, t.y, `${r.spec}: y`);
      if (!r.V) near(r.dx.data, t.dx, `${r.spec}: dx`);
      r.f.params.forEach((p, k) => near(r.dTheta[k]!.data, t.dparams[k], `${r.spec}: d${p.name}`));
    });
  });
});
