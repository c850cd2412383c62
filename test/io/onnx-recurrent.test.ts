import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { parseSpec, Rng, Tensor } from '../../src/index.js';
import { buildOnnx, ExportError, exportOnnx, importOnnx } from '../../src/io/index.js';
import type { Para } from '../../src/index.js';
import { decodeOnnx } from '../../src/io/onnx/decode.js';
import { recurrentFromOnnx } from '../../src/io/onnx/recurrent-weights.js';
import { describeWith, onnxRuntime, PYTHON, torchOnnx } from '../peer/available.js';

/**
 * Recurrent layers and ONNX: lstm, gru, rnn (and bidirectional ones) export as ONNX's LSTM, GRU
 * and RNN operators and run the same in ONNX Runtime; and the layer built from the W, R, B of
 * files torch.onnx.export writes (recurrentFromOnnx, for the importer) computes what ONNX Runtime
 * computes on those files.
 */
const { peer: runtime, value: ort } = await onnxRuntime();
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-recurrent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function randn(shape: readonly number[], rng: Rng, scale = 1): Tensor {
  return Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => scale * rng.normal()),
    shape,
  );
}

async function runOnnx(bytes: Uint8Array, x: Tensor): Promise<Float32Array> {
  const session = await ort!.InferenceSession.create(bytes);
  const out = await session.run({ [session.inputNames[0]!]: new ort!.Tensor('float32', x.data as Float32Array, [...x.shape]) });
  return out[session.outputNames[0]!]!.data as Float32Array;
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

describeWith(runtime, 'recurrent layers exported to ONNX run the same in ONNX Runtime', () => {
  for (const spec of [
    'lstm(3,5)',
    'gru(3,5)',
    'rnn(3,5)',
    'bidirectional(lstm(3,4))',
    'bidirectional(gru(3,4))',
    'scan(lstm_cell(3,4)) >> dense(4,2)',
    'embedding(7,3) >> lstm(3,6) >> gru(6,4) >> dense(4,7)',
  ]) {
    it(spec, async () => {
      const ids = spec.startsWith('embedding');
      const m: Para = parseSpec(spec).at(ids ? [6] : [6, 3]);
      const rng = new Rng(2);
      const theta = m.params.map((p) => randn(p.shape, rng, 0.5));
      const x = ids
        ? Tensor.of(
            Array.from({ length: 4 * 6 }, () => rng.int(7)),
            [4, 6],
          )
        : randn([4, 6, 3], rng);
      const built = buildOnnx(m, theta);
      expect(built.ops.filter((o) => ['LSTM', 'GRU', 'RNN'].includes(o)).length).toBeGreaterThan(0);
      expect(maxDiff(await runOnnx(built.bytes, x), m.run(theta, x).data)).toBeLessThan(2e-5);
    });
  }

  it('refuses mgu, folds and cells by name (no ONNX operator)', () => {
    expect(() => exportOnnx(parseSpec('mgu(3,4)').at([5, 3]), parseSpec('mgu(3,4)').init(0))).toThrow(
      /cannot export layer 'mgu\(3,4\)' to ONNX: ONNX has no MGU operator/,
    );
    const f = parseSpec('fold(lstm_cell(3,4))').at([5, 3]);
    expect(() => exportOnnx(f, f.init(0))).toThrow(ExportError);
  });
});

describeWith([runtime, torchOnnx()], 'the layer of an ONNX LSTM/GRU/RNN node (files from torch.onnx.export) computes what ONNX Runtime computes', () => {
  execFileSync(PYTHON, [fileURLToPath(new URL('./onnx_recurrent_models.py', import.meta.url)), dir], { stdio: ['ignore', 'ignore', 'ignore'] });
  for (const name of ['lstm', 'lstm_bi', 'gru', 'gru_bi', 'rnn', 'rnn_bi']) {
    it(name, async () => {
      const bytes = new Uint8Array(readFileSync(join(dir, `${name}.onnx`)));
      const { graph } = decodeOnnx(bytes);
      const node = graph.nodes.find((n) => ['LSTM', 'GRU', 'RNN'].includes(n.op))!;
      const weight = (i: number): Tensor => {
        const t = graph.initializers.find((c) => c.name === node.inputs[i])!;
        return new Tensor(Float32Array.from(t.data), [...t.dims]);
      };
      // the attributes as the importer reads them (torch also writes activations = [Tanh…], the defaults)
      const attrs = Object.fromEntries([...node.attrs].filter(([k]) => k !== 'activations')) as Record<string, never>;
      const { model: layer, theta } = recurrentFromOnnx(node.op as 'LSTM' | 'GRU' | 'RNN', { W: weight(1), R: weight(2), B: weight(3) }, attrs);
      expect(String(layer)).toBe(name.endsWith('_bi') ? `bidirectional(${name.slice(0, -3)}(3,5))` : `${name}(3,5)`);
      const x = randn([3, 6, 3], new Rng(9));
      const ours = layer.at([6, 3]).run(theta, x).data;
      expect(maxDiff(await runOnnx(bytes, x), ours)).toBeLessThan(2e-5);
      // the whole file through paralens import: the layer inside, the same function
      const imported = importOnnx(bytes);
      expect(String(imported.model)).toContain(String(layer));
      expect(maxDiff(await runOnnx(bytes, x), imported.model.run(imported.theta, x).data)).toBeLessThan(2e-5);
      if (!name.endsWith('_bi')) expect(String(imported.model)).toBe(`${name}(3,5)`);
    });
  }
  it('refuses what its cells do not compute, naming it', () => {
    const z = (...s: number[]): Tensor => Tensor.zeros(s);
    expect(() => recurrentFromOnnx('GRU', { W: z(1, 6, 2), R: z(1, 6, 2) }, { linear_before_reset: 0 })).toThrow(/linear_before_reset = 0/);
    expect(() => recurrentFromOnnx('LSTM', { W: z(1, 8, 2), R: z(1, 8, 2) }, { direction: 'reverse' })).toThrow(/direction 'reverse' is not supported/);
    expect(() => recurrentFromOnnx('RNN', { W: z(1, 2, 2), R: z(1, 2, 2) }, { activations: ['Relu'] })).toThrow(/activations Relu are not supported/);
  });
});
