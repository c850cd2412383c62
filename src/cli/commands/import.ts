import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataError } from '../../errors.js';
import { FileFormatError } from '../../io/errors.js';
import { saveModel } from '../../io/node.js';
import { MAX_ONNX_BYTES } from '../../io/onnx-decode.js';
import { importOnnx } from '../../io/onnx-import.js';
import { ParalensError } from '../../errors.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const command = defineCommand({
  name: 'import',
  summary: 'read an ONNX model as a Para composite (printed as its spec) and save it with its weights',
  usage: 'paralens import FILE.onnx [--save FILE.safetensors] [--json]',
  positional: 'onnx',
  description: `Reads the operator graph of an ONNX model (e.g. written by torch.onnx.export) back as a Para
composite: Gemm and MatMul(+Add) become dense, Conv conv2d/conv1d, MaxPool/AveragePool/
GlobalAveragePool the pooling layers, Relu/Sigmoid/Tanh/Softplus/LeakyRelu/Softmax/Gelu(tanh) the
activations, Flatten and a Reshape to [batch, features] flatten, and an Add that joins a skip path
residual(f) (or copy >> (f @ g) >> add for two computed branches); Split … Concat is a product @.
Prints the spec; --save writes a paralens model file, which predict, draw, export and train --init
read. Operators without a rule are refused with exit 2, each listed with its node name. See
docs/scale.md.`,
  flags: {
    onnx: { type: 'string', help: 'the ONNX model to read (also the first argument)' },
    save: { type: 'string', help: 'write the imported model and its weights to this .safetensors file', output: true },
  },
  async run(flags, io) {
    const path = flags.onnx;
    if (!path) throw new UsageError('import: give the ONNX file, e.g. paralens import model.onnx --save model.safetensors');
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) throw new DataError(`cannot read ${path}: ${st ? 'not a file' : 'no such file'}`);
    // the size bounds everything decoding allocates; refuse before reading what protobuf cannot hold
    if (st.size > MAX_ONNX_BYTES) throw new FileFormatError(`${path}: ${st.size} bytes is larger than protobuf's 2 GiB limit`);
    let imported;
    try {
      imported = importOnnx(new Uint8Array(await readFile(path)));
    } catch (e) {
      if (e instanceof ParalensError) throw Object.assign(e, { message: `${path}: ${e.message}` });
      throw e;
    }
    const { model, theta } = imported;
    const result = {
      model: String(model),
      input_shape: ['batch', ...model.dom!],
      output_shape: ['batch', ...model.cod!],
      parameters: theta.reduce((n, t) => n + t.size, 0),
      nodes: imported.ops.length,
      ops: imported.ops,
      opset: imported.opset,
      producer: imported.producer,
    };
    const saved = flags.save
      ? {
          saved: flags.save,
          file_bytes: await saveModel(
            flags.save,
            model,
            theta,
            { imported_from: basename(path), onnx_opset: imported.opset, onnx_producer: imported.producer },
            {},
            { force: Boolean(flags.force) },
          ),
        }
      : undefined;
    if (flags.json) io.out(JSON.stringify({ ...result, ...saved }) + '\n');
    else {
      io.out(`model       ${result.model}\n`);
      io.out(
        `graph       ${imported.ops.length} nodes (${imported.producer || 'unknown producer'}, opset ${imported.opset}): input [${result.input_shape.join(',')}] → output [${result.output_shape.join(',')}]\n`,
      );
      io.out(`parameters  ${result.parameters}\n`);
      if (saved) io.out(`saved       ${saved.saved} (${saved.file_bytes} bytes)\n`);
    }
    return 0;
  },
});
