import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../../src/index.js';
import { recurrentInfo } from '../../../src/nn/recurrent/index.js';
import { describeWith, PYTHON as PY, pytorch } from '../../peer/available.js';

/**
 * rnn, lstm and gru against PyTorch's nn.RNN, nn.LSTM and nn.GRU (and mgu against its formula
 * in torch operations), in float64 on random weights, sequences and initial states: outputs,
 * final states, the gradients to the input and to the initial state, and every parameter
 * gradient, at 1e-6 relative. The parameters go over as they are: same names, same layout, same
 * gate order.
 */
const cases: [string, number, number, number, number][] = [
  // kind, in, h, batch, T
  ['rnn', 3, 5, 2, 6],
  ['lstm', 3, 5, 2, 6],
  ['gru', 3, 5, 2, 6],
  ['mgu', 3, 5, 2, 6],
  ['lstm', 1, 1, 1, 1],
  ['lstm', 7, 4, 3, 9],
  ['gru', 7, 4, 3, 9],
];

describeWith(pytorch(), 'recurrent layers agree with PyTorch (float64)', () => {
  it('outputs, final states, dx, the initial-state gradients and every parameter gradient at 1e-6', () => {
    const rng = new Rng(23);
    const randn = (shape: readonly number[], scale = 1): Tensor =>
      Tensor.of(
        Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => scale * rng.normal()),
        shape,
        'float64',
      );
    const runs = cases.map(([kind, A, H, B, T]) => {
      const f = parseSpec(`${kind}(${A},${H})`).at([T, A]);
      expect(f.params.map((p) => p.name)).toEqual(['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']);
      const cell = recurrentInfo(f)!.cell;
      const theta = f.params.map((p) => randn(p.shape, 0.6));
      const x = randn([B, T, A]);
      const s0 = randn([B, cell.state]);
      const r = cell.run(theta, x, s0, makeCtx());
      const dy = randn(r.y.shape),
        ds = randn(r.s.shape);
      const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
      const { dx, ds0 } = r.pullback(dy, ds, dTheta);
      return { kind, A, H, theta, x, s0, dy, ds, y: r.y, s: r.s, dx, ds0, dTheta };
    });
    const flat = (t: Tensor): number[] => Array.from(t.data);
    const payload = runs.map((r) => ({
      kind: r.kind,
      in: r.A,
      h: r.H,
      params: r.theta.map((t) => [flat(t), t.shape]),
      x: flat(r.x),
      xshape: r.x.shape,
      s0: flat(r.s0),
      dy: flat(r.dy),
      ds: flat(r.ds),
    }));
    const script = fileURLToPath(new URL('./recurrent_torch.py', import.meta.url));
    const ref = JSON.parse(
      execFileSync(PY, [script], { input: JSON.stringify(payload), maxBuffer: 1 << 26, env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString(),
    );
    const near = (a: ArrayLike<number>, b: number[], what: string): void => {
      expect(a.length, what).toBe(b.length);
      for (let j = 0; j < b.length; j++) expect(Math.abs(a[j]! - b[j]!), `${what}[${j}]: ${a[j]} vs ${b[j]}`).toBeLessThan(1e-6 * (1 + Math.abs(b[j]!)));
    };
    runs.forEach((r, i) => {
      const t = ref[i];
      const what = `${r.kind}(${r.A},${r.H})`;
      near(r.y.data, t.y, `${what}: y`);
      near(r.s.data, t.s, `${what}: final state`);
      near(r.dx.data, t.dx, `${what}: dx`);
      near(r.ds0.data, t.ds0, `${what}: ds0`);
      r.dTheta.forEach((d, k) => near(d.data, t.dparams[k], `${what}: d${k}`));
    });
  });
});
