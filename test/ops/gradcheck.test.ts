import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeCtx, Rng, Tensor } from '../../src/index.js';
import { backend, setBackend } from '../../src/tensor/index.js';
import { OPERATORS, operator } from '../../src/ops/index.js';
import type { OpCtx } from '../../src/ops/index.js';
import { describeWith, wasmBackend } from '../peer/available.js';
import { OP_CASES } from './cases.js';
import type { OpCase } from './cases.js';

/**
 * Every operator lens passes the float64 gradient check on random shapes and attributes
 * (fast-check): the directional derivative ⟨dx, v⟩ its pullback gives for a random cotangent
 * agrees with the central difference of ⟨r, F(x + εv)⟩, on the js and the wasm backend. Each
 * operator's lens also runs the same in float32 on both backends (wasm with every kernel in
 * wasm, however small the call).
 */

const dot = (a: Tensor, b: Tensor): number => {
  let s = 0;
  for (let i = 0; i < a.size; i++) s += a.data[i]! * b.data[i]!;
  return s;
};
const randn = (shape: readonly number[], rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
    'float64',
  );

const ctxFor = (inputs: readonly Tensor[]): OpCtx => ({ ...makeCtx(), batch: inputs[0]?.shape[0] ?? 1 });

/** The directional derivative from the pullback and by central differences. */
export function checkOp(c: OpCase, seed = 7): { analytic: number; numeric: number; relError: number } {
  const op = operator(c.name)!.make(c.attrs);
  const rng = new Rng(seed);
  const lens = op.forward(c.inputs, ctxFor(c.inputs));
  const rs = lens.ys.map((y) => randn(y.shape, rng));
  const live = c.inputs.map((_, i) => op.differentiable(i));
  const vs = c.inputs.map((x, i) => (live[i] ? randn(x.shape, rng) : Tensor.zeros(x.shape, 'float64')));
  const dxs = lens.pullback(rs, live);
  const analytic = c.inputs.reduce((s, _x, i) => s + (dxs[i] ? dot(dxs[i]!, vs[i]!) : 0), 0);
  const at = (h: number): number => {
    const xs = c.inputs.map((x, i) => {
      const t = x.clone();
      for (let j = 0; j < t.size; j++) t.data[j]! += h * vs[i]!.data[j]!;
      return t;
    });
    const ys = op.forward(xs, ctxFor(xs)).ys;
    return ys.reduce((s, y, j) => s + dot(rs[j]!, y), 0);
  };
  const eps = 1e-6;
  const numeric = (at(eps) - at(-eps)) / (2 * eps);
  const relError = Math.abs(analytic - numeric) / Math.max(1e-7, Math.abs(analytic) + Math.abs(numeric));
  return { analytic, numeric, relError };
}

function gradchecksAll(runs: number): void {
  for (const def of OPERATORS) {
    it(`${def.name}`, () => {
      const arb = OP_CASES[def.name];
      expect(arb, `no random cases for ${def.name} in test/ops/cases.ts`).toBeDefined();
      fc.assert(
        fc.property(arb!, (c) => {
          const r = checkOp(c);
          if (!(r.relError < 1e-5))
            throw new Error(
              `${def.name}${JSON.stringify(c.attrs)} on ${c.inputs.map((x) => `[${x.shape}]`).join(', ')}: analytic ${r.analytic}, numeric ${r.numeric}`,
            );
        }),
        { numRuns: runs, seed: 42 },
      );
    });
  }
}

describe('operator lenses: float64 gradient check on the js backend', () => gradchecksAll(12));

const { peer: wasmPeer } = await wasmBackend();
describeWith(wasmPeer, 'operator lenses on the wasm backend', () => {
  describe('float64 gradient check', () => {
    let previous = backend();
    it('selects wasm', async () => {
      const { createWasmBackend } = await import('../../src/tensor/wasm-backend.js');
      previous = backend();
      setBackend(await createWasmBackend({ minGemmVolume: 0, minElements: 0, threads: 1, name: 'wasm-all' }));
    });
    gradchecksAll(4);
    it('restores the backend', () => void setBackend(previous));
  });

  it('float32 forward and pullback agree with the js backend on every operator', async () => {
    const { createWasmBackend } = await import('../../src/tensor/wasm-backend.js');
    const wasm = await createWasmBackend({ minGemmVolume: 0, minElements: 0, threads: 1, name: 'wasm-all-32' });
    const previous = backend();
    try {
      for (const def of OPERATORS) {
        const [c] = fc.sample(OP_CASES[def.name]!, { numRuns: 1, seed: 3 });
        const inputs = c!.inputs.map((x) => x.to('float32'));
        const run = (): Tensor[] => {
          const op = def.make(c!.attrs);
          const lens = op.forward(inputs, ctxFor(inputs));
          const rng = new Rng(5);
          const rs = lens.ys.map((y) => randn(y.shape, rng).to('float32'));
          const dxs = lens.pullback(
            rs,
            inputs.map((_, i) => op.differentiable(i)),
          );
          return [...lens.ys, ...dxs.filter((d): d is Tensor => !!d)].map((t) => t.clone());
        };
        setBackend('js');
        const ref = run();
        setBackend(wasm);
        const got = run();
        expect(got.length, def.name).toBe(ref.length);
        got.forEach((t, i) => {
          const scale = Math.max(1, ...Array.from(ref[i]!.data, Math.abs));
          for (let j = 0; j < t.size; j++) expect(Math.abs(t.data[j]! - ref[i]!.data[j]!), `${def.name} output ${i}[${j}]`).toBeLessThan(1e-4 * scale);
        });
      }
    } finally {
      setBackend(previous);
      wasm.dispose();
    }
  });
});
