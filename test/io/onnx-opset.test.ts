import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseSpec, Rng, Tensor } from '../../src/index.js';
import { buildOnnx, importOnnx, irVersionFor, ONNX_OPSETS } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { describeWith, itWith, onnxRuntime, PYTHON, torchOnnx } from '../peer/available.js';

/**
 * `export --opset N`: every opset from 13 to 20, with the IR version that opset needs — each file
 * runs in onnxruntime and agrees with paralens, reads back by import, and (opsets up to 17) passes
 * the checker of onnx 1.12, which knows no later opset. Operators newer than the opset (Gelu,
 * LayerNormalization, HardSwish, Mish) are written in older ones.
 */
const { peer: runtime, value: ort } = await onnxRuntime();
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-opset-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODELS: [string, number[]][] = [
  ['dense(6,8) >> gelu >> layernorm(8) >> HardSwish >> Mish >> dense(8,3) >> softmax', [6]],
  ['embedding(11,8) >> transformer(8,2,16,rope) >> rmsnorm(8) >> dense(8,11)', [5]],
  ['conv2d(2,4,3,1,1) >> relu >> maxpool2d(2) >> graph(x >> ReduceMean(axes(2,3),keepdims(0)) >> m) >> dense(4,2)', [2, 6, 6]],
];

function input(dom: readonly number[], ids: boolean): Tensor {
  const rng = new Rng(3);
  return Tensor.of(
    Array.from({ length: 4 * dom.reduce((a, b) => a * b, 1) }, () => (ids ? rng.int(11) : rng.normal())),
    [4, ...dom],
  );
}

describeWith(runtime, 'export --opset N: every opset 13–20 runs in onnxruntime and reads back', () => {
  it.each(MODELS)('%s', async (spec, dom) => {
    const m = parseSpec(spec).at(dom);
    const theta = m.init(2);
    const x = input(dom, spec.startsWith('embedding'));
    const want = m.run(theta, x).data;
    for (const opset of ONNX_OPSETS) {
      const out = buildOnnx(m, theta, { opset });
      const session = await ort!.InferenceSession.create(out.bytes);
      const got = (await session.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [...x.shape]) })).output!.data as Float32Array;
      want.forEach((v, i) => expect(Math.abs(got[i]! - v), `opset ${opset} at ${i}`).toBeLessThanOrEqual(2e-5 * (1 + Math.abs(v))));
      const back = importOnnx(out.bytes);
      expect(back.opset).toBe(opset);
      const again = back.model.run(back.theta, x).data;
      want.forEach((v, i) => expect(Math.abs(again[i]! - v), `read back at opset ${opset}`).toBeLessThanOrEqual(2e-5 * (1 + Math.abs(v))));
      writeFileSync(join(dir, `${MODELS.findIndex((e) => e[0] === spec)}.opset${opset}.onnx`), out.bytes);
    }
  });
});

itWith(torchOnnx(), "onnx 1.12's checker reads every file at opsets 13–17, with IR 7 or 8", () => {
  const files = MODELS.flatMap((_, k) => ONNX_OPSETS.filter((o) => o <= 17).map((o) => join(dir, `${k}.opset${o}.onnx`)));
  const script = [
    'import sys, onnx',
    'for f in sys.argv[1:]:',
    '    m = onnx.load(f)',
    '    onnx.checker.check_model(m, full_check=True)',
    '    print(m.ir_version, m.opset_import[0].version)',
  ].join('\n');
  for (const [k, [spec, dom]] of MODELS.entries())
    for (const o of ONNX_OPSETS.filter((v) => v <= 17))
      writeFileSync(join(dir, `${k}.opset${o}.onnx`), buildOnnx(parseSpec(spec).at(dom), parseSpec(spec).at(dom).init(2), { opset: o }).bytes);
  const r = spawnSync(PYTHON, ['-c', script, ...files], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(files.length);
  for (const line of lines) {
    const [ir, opset] = line.split(' ').map(Number);
    expect(ir).toBe(irVersionFor(opset!));
  }
});

it('export --opset outside 13–20 is refused with exit 2', async () => {
  const r = await cli('export', '--load', join(dir, 'none.safetensors'), '--onnx', join(dir, 'x.onnx'), '--opset', '12');
  expect(r.code).toBe(2);
});
