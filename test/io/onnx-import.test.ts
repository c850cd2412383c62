import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOnnx } from '../../src/io/onnx/import.js';
import { onnxSchema } from '../../src/io/onnx/schema.js';
import { builtInData, gradcheck, parseSpec, Rng, softmaxCrossEntropy, Tensor } from '../../src/index.js';
import { decodeModel, decodeSafetensors, exportOnnx } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { writeIdx } from './idx-files.js';
import { describeWith, PYTHON, torchOnnx } from '../peer/available.js';
import { onnxBytes } from './onnx/files.js';

const gemmNode = { op: 'Gemm', inputs: ['x', 'W', 'b'], outputs: ['z'], attrs: { transB: 1 } };

/**
 * paralens import on models PyTorch's own exporter wrote (torch.onnx.export from Debian's
 * python3-torch, opset 17): the graph becomes a Para composite — named layers where the
 * operators are one, operator lenses elsewhere — whose forward on the imported weights is
 * PyTorch's to 1e-5, which gradchecks, and which trains from the CLI with --init. The corpus of
 * test/io/onnx-corpus*.test.ts reads many more.
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCRIPT = fileURLToPath(new URL('./onnx_models.py', import.meta.url));

/** The spec each model reads as (a regular expression where part of it is a graph of operators). */
const SPECS: Record<string, RegExp> = {
  mlp: /^dense\(4,16\) >> relu >> dense\(16,8\) >> tanh >> dense\(8,3\)$/,
  cnn: /^conv2d\(1,3,3,1,1\) >> relu >> maxpool2d\(2,2\) >> conv2d\(3,4,3,1,0\) >> sigmoid >> avgpool2d\(2,2\) >> flatten >> dense\(4,10\)$/,
  transformer:
    /^embedding\(11,8\) >> residual\(layernorm\(8\) >> attention\(8,2,none\)\) >> residual\(layernorm\(8\) >> dense\(8,16\) >> relu >> dense\(16,8\)\) >> layernorm\(8\) >> dense\(8,11\)$/,
  resnet:
    /^conv2d\(1,4,3,1,1\) >> relu >> residual\(conv2d\(4,4,3,1,1\) >> relu >> conv2d\(4,4,3,1,1\)\) >> relu >> conv2d\(4,6,3,2,1\) >> relu >> globalavgpool >> graph\(x >> dense\(6,10\) >> dense, x >> dense\(6,10\) >> tanh >> tanh, \(dense @ tanh\) >> Add >> add\) >> leaky_relu\(0.1\) >> residual\(dense\(10,10\) >> softplus\)$/,
  projection:
    /^conv2d\(1,4,3,1,1\) >> graph\(x >> conv2d\(4,6,3,2,1\) >> conv2d, x >> conv2d\(4,6,1,2,0\) >> conv2d_1, \(conv2d @ conv2d_1\) >> Add >> add\) >> flatten >> dense\(96,2\)$/,
  activations: /^dense\(4,4\) >> Gelu >> dense\(4,4\) >> HardSwish$/,
};

describeWith(torchOnnx(), 'paralens import: ONNX files from torch.onnx.export', () => {
  beforeAll(() => {
    const r = spawnSync(PYTHON, [SCRIPT, dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`torch.onnx.export failed: ${r.stderr}`);
  }, 120_000);

  it.each(Object.entries(SPECS))('%s: the composite is %s and its forward equals PyTorch to 1e-5', async (name, spec) => {
    const saved = join(dir, `${name}.safetensors`);
    const r = await cli('import', join(dir, `${name}.onnx`), '--save', saved, '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().model).toMatch(spec);
    const file = decodeModel(readFileSync(saved));
    const io = decodeSafetensors(readFileSync(join(dir, `${name}.io.safetensors`))).tensors;
    const ours = file.model.run(file.theta, io.get('x')!).data,
      theirs = io.get('y')!.data;
    expect(ours.length).toBe(theirs.length);
    let d = 0,
      s = 0;
    theirs.forEach((v, i) => {
      d = Math.max(d, Math.abs(v - ours[i]!));
      s = Math.max(s, Math.abs(v));
    });
    expect(d / s).toBeLessThanOrEqual(1e-5);
    // an ordinary morphism: its pullback gradchecks at the imported weights
    // (token ids for the transformer: its embedding takes integers)
    expect(gradcheck(file.model, { theta: file.theta, batch: 2, ...(name === 'transformer' ? { x: io.get('x')!, fixedInput: true } : {}) }).ok).toBe(true);
  });

  it('refuses an operator it does not read yet, naming it with its node and opset (exit 2)', async () => {
    const r = await cli('import', join(dir, 'unsupported.onnx'));
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/unsupported ONNX operators: CumSum \(node '[^']+', opset 17\)/);
  });

  it('fine-tunes from the imported weights: train --init (MLP on Iris, CNN on IDX files)', async () => {
    const mlp = join(dir, 'mlp.safetensors');
    await cli('import', join(dir, 'mlp.onnx'), '--save', mlp);
    const imported = decodeModel(readFileSync(mlp));
    const iris = builtInData('iris');
    const before = softmaxCrossEntropy.apply(imported.model.run(imported.theta, iris.x), iris.y).value;
    const tuned = join(dir, 'mlp-tuned.safetensors');
    const t = await cli('train', '--init', mlp, '--data', 'iris', '--epochs', '40', '--optimizer', 'adam', '--lr', '0.02', '--save', tuned, '--json');
    expect(t.code, t.err).toBe(0);
    const after = decodeModel(readFileSync(tuned));
    expect(String(after.model)).toMatch(SPECS.mlp!);
    expect(softmaxCrossEntropy.apply(after.model.run(after.theta, iris.x), iris.y).value).toBeLessThan(before / 2);
    const wrong = await cli('train', '--init', mlp, '--model', 'dense(4,3)', '--data', 'iris');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/is not the model of --init/);

    const data = join(dir, 'idx');
    mkdirSync(data);
    const rng = new Rng(2);
    writeIdx(data, 64, 'train', rng);
    writeIdx(data, 16, 't10k', rng);
    const cnn = join(dir, 'cnn.safetensors');
    await cli('import', join(dir, 'cnn.onnx'), '--save', cnn);
    const c = await cli(
      'train',
      '--init',
      cnn,
      '--data',
      'fashion-mnist',
      '--data-dir',
      data,
      '--epochs',
      '3',
      '--batch',
      '16',
      '--optimizer',
      'adam',
      '--lr',
      '0.01',
      '--json',
    );
    expect(c.code, c.err).toBe(0);
    expect(Number.isFinite(c.json().final_loss)).toBe(true);
  });
});

describe('paralens import: bad files, refused before allocating', () => {
  const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
  const model = (initializer: object): Uint8Array =>
    ModelProto.encode(
      ModelProto.fromObject({
        ir_version: 8,
        opset_import: [{ domain: '', version: 17 }],
        graph: {
          node: [{ op_type: 'Gemm', name: 'fc', input: ['input', 'W', 'b'], output: ['output'], attribute: [{ name: 'transB', type: 2, i: 1 }] }],
          initializer: [initializer, { name: 'b', dims: [2], data_type: 1, float_data: [0, 0] }],
          input: [{ name: 'input', type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: 3 }] } } } }],
          output: [{ name: 'output', type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: 2 }] } } } }],
        },
      }),
    ).finish();

  it('a well-formed hand-written graph imports', () => {
    const ok = importOnnx(model({ name: 'W', dims: [2, 3], data_type: 1, float_data: [1, 2, 3, 4, 5, 6] }));
    expect(String(ok.model)).toBe('dense(3,2)');
    expect(Array.from(ok.theta[0]!.data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('constants computed in the graph are folded: an Identity of an initializer, scalar arithmetic', () => {
    const bytes = ModelProto.encode(
      ModelProto.fromObject({
        ir_version: 8,
        opset_import: [{ domain: '', version: 17 }],
        graph: {
          node: [
            { op_type: 'Identity', name: 'same', input: ['W0'], output: ['W'] },
            { op_type: 'Constant', name: 'two', output: ['two'], attribute: [{ name: 'value', type: 4, t: { dims: [], data_type: 1, float_data: [2] } }] },
            { op_type: 'Pow', name: 'pow', input: ['two', 'two'], output: ['four'] },
            { op_type: 'Mul', name: 'mul', input: ['four', 'b0'], output: ['b'] },
            { op_type: 'Gemm', name: 'fc', input: ['input', 'W', 'b'], output: ['output'], attribute: [{ name: 'transB', type: 2, i: 1 }] },
          ],
          initializer: [
            { name: 'W0', dims: [1, 2], data_type: 1, float_data: [1, -1] },
            { name: 'b0', dims: [], data_type: 1, float_data: [0.5] },
          ],
          input: [{ name: 'input', type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: 2 }] } } } }],
          output: [{ name: 'output', type: { tensor_type: { elem_type: 1, shape: { dim: [{ dim_param: 'N' }, { dim_value: 1 }] } } } }],
        },
      }),
    ).finish();
    const m = importOnnx(bytes);
    expect(String(m.model)).toBe('dense(2,1)');
    expect(Array.from(m.theta[0]!.data)).toEqual([1, -1]);
    expect(Array.from(m.theta[1]!.data)).toEqual([2]); // 2 ** 2 · 0.5
  });

  it('a tensor declaring more than the file holds is refused, naming both sizes', () => {
    expect(() => importOnnx(model({ name: 'W', dims: [100000, 100000], data_type: 1, float_data: [1, 2, 3, 4, 5, 6] }))).toThrow(/more than/);
    expect(() => importOnnx(model({ name: 'W', dims: [2000, 3], data_type: 1, raw_data: new Uint8Array(24) }))).toThrow(
      /need 24000 bytes but the file holds 24/,
    );
    expect(() => importOnnx(model({ name: 'W', dims: [2, 3], data_type: 1, data_location: 1 }))).toThrow(/external file/);
  });

  it('bytes that are not a ModelProto, or a graph with no nodes, are a FileFormatError', () => {
    expect(() => importOnnx(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow(/not an ONNX model/);
    expect(() => importOnnx(new Uint8Array(0))).toThrow(/not an ONNX model/);
  });

  it('refuses what is not one graph of one tensor in and out, operators it does not read, a dynamic axis after the batch, naming each', () => {
    expect(() =>
      importOnnx(
        onnxBytes({
          nodes: [
            { op: 'Loop', inputs: ['x'], outputs: ['y'], name: 'rec' },
            { op: 'Frob', inputs: ['y'], outputs: ['z'], domain: 'com.acme', name: 'f' },
          ],
          output: 'z',
        }),
      ),
    ).toThrow(/unsupported ONNX operators: Loop \(node 'rec', opset 17: a loop whose trip count.*\), com\.acme\.Frob \(node 'f', opset 17\)/);
    expect(() => importOnnx(onnxBytes({ nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }], input: ['N', 'T', 4] }))).toThrow(
      /fixed sizes after the batch axis/,
    );
    expect(() => importOnnx(onnxBytes({ nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }], opset: 11 }))).toThrow(
      /opset 11; import reads opsets 13 to 20/,
    );
    expect(() => importOnnx(onnxBytes({ nodes: [{ op: 'Reshape', inputs: ['x', 'x'], outputs: ['y'] }] }))).toThrow(
      /target shape \(input 2\) is computed from the data/,
    );
  });

  it('reads what ordinary code writes: shapes computed from the input (x.view(x.size(0), -1)) with the batch kept symbolic', () => {
    const m = importOnnx(
      onnxBytes({
        input: ['N', 2, 3],
        nodes: [
          { op: 'Shape', inputs: ['x'], outputs: ['s'] },
          { op: 'Gather', inputs: ['s', 'zero'], outputs: ['n'], attrs: { axis: 0 } },
          { op: 'Unsqueeze', inputs: ['n', 'axes'], outputs: ['n1'] },
          { op: 'Concat', inputs: ['n1', 'minus1'], outputs: ['shape'], attrs: { axis: 0 } },
          { op: 'Reshape', inputs: ['x', 'shape'], outputs: ['f'] },
          { op: 'Gemm', inputs: ['f', 'W', 'b'], outputs: ['y'], attrs: { transB: 1 } },
        ],
        inits: { W: { dims: [2, 6], values: [1, 2, 3, 4, 5, 6, 6, 5, 4, 3, 2, 1] }, b: { dims: [2], values: [0, 1] } },
        ints: { zero: { dims: [], values: [0] }, axes: { dims: [1], values: [0] }, minus1: { dims: [1], values: [-1] } },
      }),
    );
    expect(String(m.model)).toBe('flatten >> dense(6,2)');
    const x = Tensor.of([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], [2, 2, 3]);
    expect(Array.from(m.model.run(m.theta, x).data)).toEqual([1, 7, 6, 2]);
  });

  it('tells fine-tuning what it needs: token ids in (and the vocabulary), a softmax or log-softmax out', () => {
    const logits = importOnnx(
      onnxBytes({
        nodes: [gemmNode, { op: 'LogSoftmax', inputs: ['z'], outputs: ['y'], attrs: { axis: -1 } }],
        inits: { W: { dims: [2, 4], values: [1, 2, 3, 4, 5, 6, 7, 8] }, b: { dims: [2], values: [0, 0] } },
      }),
    );
    expect(logits.outputLink).toBe('log-softmax');
    expect(logits.input.kind).toBe('numbers');
    const ids = importOnnx(
      onnxBytes({
        input: ['N', 3],
        inputType: 7,
        nodes: [
          { op: 'Gather', inputs: ['E', 'x'], outputs: ['e'], attrs: { axis: 0 } },
          { op: 'Softmax', inputs: ['e'], outputs: ['y'], attrs: { axis: 2 } },
        ],
        inits: { E: { dims: [5, 2], values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] } },
      }),
    );
    expect(String(ids.model)).toBe('embedding(5,2) >> softmax');
    expect(ids.input).toEqual({ name: 'x', kind: 'ids', type: 'int64', vocabulary: 5 });
    expect(ids.outputLink).toBe('softmax');
  });

  it.each([
    'dense(3,5) >> tanh >> residual(dense(5,5) >> relu) >> dense(5,2) >> softmax',
    'dense(2,8) >> residual(dense(8,8) >> gelu) >> (dense(4,1) @ dense(4,1)) >> add(1)',
    'dense(3,4) >> copy(4) >> (dense(4,2) @ id(4)) >> (softplus(3) @ discard(3)) >> leaky_relu(0.2)',
    'conv2d(1,3,3,1,1) >> relu >> maxpool2d(2,2) >> globalavgpool >> dense(3,2)',
  ])("paralens's own ONNX export read back: %s", (spec) => {
    const m = parseSpec(spec).at(spec.startsWith('conv') ? [1, 6, 6] : [parseSpec(spec).dom![0]!]);
    const theta = m.init(3);
    const back = importOnnx(exportOnnx(m, theta));
    // the same layers where the export wrote them as one operator each; products and copies read back as graph(…)
    if (!/copy|@/.test(spec)) expect(String(back.model)).toBe(String(m));
    const x = Tensor.zeros([4, ...m.dom!]);
    const rng = new Rng(1);
    for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
    const got = back.model.run(back.theta, x).data,
      want = m.run(theta, x).data;
    want.forEach((v, i) => expect(got[i]).toBeCloseTo(v, 5));
  });
});
