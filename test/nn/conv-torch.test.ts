import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../src/index.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

/** Layer spec and per-sample input shape; the torch script builds the same layer from kind and args. */
const cases: [string, number[]][] = [
  ['conv2d(3,4,3,1,1)', [3, 7, 6]],
  ['conv2d(2,5,3,2,0)', [2, 9, 8]],
  ['conv2d(1,3,5,1,2)', [1, 6, 6]],
  ['conv2d(2,2,2,3,1)', [2, 7, 5]],
  ['conv1d(3,4,3,1,1)', [3, 10]],
  ['conv1d(2,3,4,2,0)', [2, 11]],
  ['maxpool2d(2,2)', [3, 6, 6]],
  ['maxpool2d(3,2)', [2, 7, 8]],
  ['avgpool2d(2,2)', [2, 6, 7]],
  ['avgpool2d(3,1)', [2, 5, 5]],
  ['flatten', [2, 3, 4]],
  ['globalavgpool', [3, 4, 5]],
];

describeWith(pytorch(), 'conv and pooling layers agree with PyTorch (float64)', () => {
  it('outputs, input gradients and parameter gradients at 1e-6', () => {
    const rng = new Rng(8);
    const randn = (shape: number[]): Tensor =>
      Tensor.of(
        Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
        shape,
        'float64',
      );
    const runs = cases.map(([spec, dom]) => {
      const f = parseSpec(spec).at(dom);
      const theta = f.init(rng.split(), 'float64');
      const x = randn([3, ...dom]);
      const lens = f.forward(theta, x, makeCtx());
      const dy = randn(lens.y.shape as number[]);
      const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
      const dx = lens.pullback(dy, dTheta);
      return { spec, f, theta, x, y: lens.y, dy, dx, dTheta };
    });
    const payload = runs.map((r) => ({
      kind: r.f.kind,
      args: r.f.args,
      x: Array.from(r.x.data),
      xshape: r.x.shape,
      weight: r.theta[0] && Array.from(r.theta[0].data),
      bias: r.theta[1] && Array.from(r.theta[1].data),
      dy: Array.from(r.dy.data),
    }));
    const script = fileURLToPath(new URL('./conv_torch.py', import.meta.url));
    const ref = JSON.parse(
      execFileSync(PYTHON, [script], { input: JSON.stringify(payload), maxBuffer: 1 << 26, env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString(),
    );
    const near = (a: ArrayLike<number>, b: number[], what: string): void => {
      expect(a.length, what).toBe(b.length);
      for (let j = 0; j < b.length; j++) expect(Math.abs(a[j]! - b[j]!), `${what}[${j}]`).toBeLessThan(1e-6 * (1 + Math.abs(b[j]!)));
    };
    runs.forEach((r, i) => {
      const t = ref[i];
      expect(r.y.shape, `${r.spec}: output shape`).toEqual([...t.yshape.slice(0, 1), ...(r.f.cod as number[])]);
      near(r.y.data, t.y, `${r.spec}: y`);
      near(r.dx.data, t.dx, `${r.spec}: dx`);
      if (r.theta.length) {
        near(r.dTheta[0]!.data, t.dweight, `${r.spec}: dweight`);
        near(r.dTheta[1]!.data, t.dbias, `${r.spec}: dbias`);
      }
    });
  });
});
