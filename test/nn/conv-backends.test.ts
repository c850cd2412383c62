import { expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../src/index.js';
import { backend, getBackendByName, setBackend } from '../../src/tensor/index.js';
import { describeWith, wasmBackend } from '../peer/available.js';

/** The conv layers on every backend: float32 results within float32 tolerance of the reference backend. */
const { peer: wasm } = await wasmBackend();

function runNet(name: string): { y: Float32Array; dx: Float32Array; dTheta: Float32Array[] } {
  const previous = backend();
  setBackend(name);
  try {
    const f = parseSpec('conv2d(2,8,3,1,1) >> relu >> maxpool2d(2) >> conv2d(8,16,3,2,1) >> avgpool2d(2,1) >> globalavgpool >> dense(16,5)').at([2, 20, 18]);
    const theta = f.init(3);
    const rng = new Rng(4);
    const x = Tensor.of(
      Array.from({ length: 70 * 2 * 20 * 18 }, () => rng.normal()),
      [70, 2, 20, 18],
    );
    const lens = f.forward(theta, x, makeCtx());
    const dy = Tensor.of(
      Array.from({ length: lens.y.size }, () => rng.normal()),
      lens.y.shape,
    );
    const dTheta = theta.map((t) => Tensor.zeros(t.shape));
    const dx = lens.pullback(dy, dTheta);
    return { y: lens.y.data as Float32Array, dx: dx.data as Float32Array, dTheta: dTheta.map((d) => d.data as Float32Array) };
  } finally {
    setBackend(previous);
  }
}

describeWith(wasm, 'conv layers agree across backends (float32)', () => {
  it('wasm matches js on a conv/pool network: outputs, dx and every parameter gradient', () => {
    expect(getBackendByName('wasm')).toBeDefined();
    const ref = runNet('js');
    const got = runNet('wasm');
    const close = (a: Float32Array, b: Float32Array, what: string): void => {
      let scale = 0;
      for (const v of b) scale = Math.max(scale, Math.abs(v));
      for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!), `${what}[${i}]`).toBeLessThan(1e-4 * (1 + scale));
    };
    close(got.y, ref.y, 'y');
    close(got.dx, ref.dx, 'dx');
    got.dTheta.forEach((d, i) => close(d, ref.dTheta[i]!, `dθ${i}`));
  });
});
