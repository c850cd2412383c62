import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dense, elementwise, leakyRelu, lossByName, makeCtx, optimizer, Rng, seq, softmax, Tensor } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { describeWith, PYTHON, pytorch } from './available.js';

interface Case {
  model: Para;
  layers: Record<string, unknown>[];
  x: Tensor;
  target: Tensor;
  loss: string;
  lr: number;
}

/** A random MLP with random activations, a loss suited to its output, and data. */
function randomCase(rng: Rng): Case {
  const depth = 1 + rng.int(3);
  const widths = Array.from({ length: depth + 1 }, () => 1 + rng.int(5));
  const loss = ['mse', 'bce', 'softmax-cross-entropy'][rng.int(3)]!;
  if (loss === 'softmax-cross-entropy') widths[depth] = Math.max(2, widths[depth]!);
  const acts = ['sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'leaky_relu', 'softmax'];
  const morphisms: Para[] = [];
  const layers: Record<string, unknown>[] = [];
  for (let i = 0; i < depth; i++) {
    morphisms.push(dense(widths[i]!, widths[i + 1]!));
    layers.push({ kind: 'dense', in: widths[i], out: widths[i + 1] });
    if (i < depth - 1 || loss === 'mse') {
      const a = acts[rng.int(acts.length)]!;
      if (a === 'leaky_relu') morphisms.push(leakyRelu(0.1));
      else if (a === 'softmax') morphisms.push(softmax());
      else morphisms.push(elementwise(a as 'sigmoid'));
      layers.push({ kind: a, alpha: 0.1 });
    }
  }
  const model = seq(...morphisms);
  const B = 2 + rng.int(4),
    C = widths[depth]!;
  const x = Tensor.of(
    Array.from({ length: B * widths[0]! }, () => rng.normal()),
    [B, widths[0]!],
    'float64',
  );
  const target = Tensor.zeros([B, C], 'float64');
  for (let b = 0; b < B; b++) {
    if (loss === 'softmax-cross-entropy') target.data[b * C + rng.int(C)] = 1;
    else for (let c = 0; c < C; c++) target.data[b * C + c] = loss === 'bce' ? rng.bernoulli(0.5) : rng.normal();
  }
  return { model, layers, x, target, loss, lr: 0.05 };
}

describeWith(pytorch(), 'paralens agrees with PyTorch (float64)', () => {
  it('outputs, losses, every gradient, and three steps of every optimiser on random networks', () => {
    const rng = new Rng(2026);
    const cases = Array.from({ length: 24 }, () => randomCase(rng));
    const thetas = cases.map((c) => c.model.init(rng.split(), 'float64'));
    const payload = cases.map((c, i) => {
      let k = 0;
      return {
        layers: c.layers.map((l) => (l.kind === 'dense' ? { ...l, weight: Array.from(thetas[i]![k++]!.data), bias: Array.from(thetas[i]![k++]!.data) } : l)),
        x: c.x.toArray(),
        target: c.target.toArray(),
        loss: c.loss,
        lr: c.lr,
      };
    });
    const script = fileURLToPath(new URL('./torch_check.py', import.meta.url));
    const ref = JSON.parse(
      execFileSync(PYTHON, [script], { input: JSON.stringify(payload), maxBuffer: 1 << 26, env: { ...process.env, OMP_NUM_THREADS: '1' } }).toString(),
    );
    const near = (a: ArrayLike<number>, b: number[], what: string): void => {
      expect(a.length, what).toBe(b.length);
      for (let j = 0; j < b.length; j++) expect(Math.abs(a[j]! - b[j]!), `${what}[${j}]`).toBeLessThan(1e-6 * (1 + Math.abs(b[j]!)));
    };
    cases.forEach((c, i) => {
      const r = ref[i];
      const name = `${c.model} with ${c.loss}`;
      const loss = lossByName(c.loss);
      const lens = c.model.forward(thetas[i]!, c.x, makeCtx());
      const L = loss.apply(lens.y, c.target);
      const dTheta = thetas[i]!.map((t) => Tensor.zeros(t.shape, 'float64'));
      const dx = lens.pullback(L.pullback(), dTheta);
      near(lens.y.data, r.y, `${name}: y`);
      near([L.value], [r.loss], `${name}: loss`);
      near(dx.data, r.dx, `${name}: dx`);
      near(
        dTheta.flatMap((d) => Array.from(d.data)),
        r.dtheta,
        `${name}: dθ`,
      );
      for (const opt of ['sgd', 'momentum', 'nesterov', 'adam', 'adamw']) {
        const theta = thetas[i]!.map((t) => t.clone());
        const o = optimizer(opt, { lr: c.lr });
        for (let s = 0; s < 3; s++) {
          const l2 = c.model.forward(theta, c.x, makeCtx());
          const g = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
          l2.pullback(loss.apply(l2.y, c.target).pullback(), g);
          o.step(theta, g);
        }
        near(
          theta.flatMap((t) => Array.from(t.data)),
          r.steps[opt],
          `${name}: θ after 3 ${opt} steps`,
        );
      }
    });
  });
});
