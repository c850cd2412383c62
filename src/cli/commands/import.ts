import { basename } from 'node:path';
import { ParalensError } from '../../errors.js';
import { saveModel } from '../../io/node.js';
import { importOnnx } from '../../io/onnx/import.js';
import { readOnnxFile } from '../../io/onnx/node-read.js';
import { ONNX_LIMITS } from '../../io/onnx/scan.js';
import { importableOperators } from '../../io/onnx/table.js';
import { PENDING_OPERATORS } from '../../ops/vocabulary.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';

export const command = defineCommand({
  name: 'import',
  summary: 'read an ONNX model as a Para composite of operator lenses (printed as its spec) and save it with its weights',
  usage: 'paralens import FILE.onnx [--save FILE.safetensors] [--json]',
  positional: 'onnx',
  description: `Reads any acyclic ONNX graph (opsets 13 to 20; e.g. written by torch.onnx.export) as a Para
composite: every operator is a lens with its own pullback, shape-only subgraphs (Shape, Gather,
Concat … into a Reshape) are evaluated at import with the batch kept symbolic, and sub-diagrams
that are named layers are read as them (dense, conv2d, conv1d, maxpool2d, avgpool2d, layernorm,
embedding, attention, gelu, flatten, globalavgpool, residual(f); LSTM, GRU and RNN nodes as lstm, gru
and rnn); the rest stays operators, in
graph(…), which run and train as they are. Prints the spec; --save writes a paralens model file,
which predict, draw, export and train --init read. Refused with exit 2 and one line: operators
import does not read (each listed with its node name and opset), a value computed from itself, a
NaN or infinite weight, a file over the limits (${ONNX_LIMITS.nodes} nodes, ${ONNX_LIMITS.attributesPerNode} attributes per node,
${ONNX_LIMITS.rank} dimensions). See docs/onnx.md.

Operators read: ${importableOperators().join(', ')}.
Not yet: ${Object.keys(PENDING_OPERATORS).join(', ')}.`,
  flags: {
    onnx: { type: 'string', help: 'the ONNX model to read (also the first argument)' },
    save: { type: 'string', help: 'write the imported model and its weights to this .safetensors file', output: true },
  },
  async run(flags, io) {
    const path = flags.onnx;
    if (!path) throw new UsageError('import: give the ONNX file, e.g. paralens import model.onnx --save model.safetensors');
    const bytes = readOnnxFile(path);
    let imported;
    try {
      imported = importOnnx(bytes);
    } catch (e) {
      if (e instanceof ParalensError) throw Object.assign(e, { message: `${path}: ${e.message}` });
      throw e;
    }
    const { model, theta } = imported;
    const result: Record<string, unknown> = {
      model: String(model),
      input_shape: ['batch', ...model.dom!],
      output_shape: ['batch', ...model.cod!],
      parameters: theta.reduce((n, t) => n + t.size, 0),
      nodes: imported.ops.length,
      ops: imported.ops,
      opset: imported.opset,
      producer: imported.producer,
      input: imported.input.kind,
      ...(imported.input.vocabulary ? { vocabulary: imported.input.vocabulary } : {}),
      output_link: imported.outputLink ?? null,
      fixed_batch: imported.fixedBatch ?? null,
      notes: imported.notes,
    };
    if (flags.save) {
      result.saved = flags.save;
      result.file_bytes = await saveModel(
        flags.save,
        model,
        theta,
        {
          imported_from: basename(path),
          onnx_opset: imported.opset,
          onnx_producer: imported.producer,
          onnx_input: imported.input.kind,
          ...(imported.outputLink ? { onnx_output_link: imported.outputLink } : {}),
        },
        {},
        { force: Boolean(flags.force) },
      );
    }
    if (flags.json) io.out(JSON.stringify(result) + '\n');
    else {
      io.out(`model       ${result.model}\n`);
      io.out(
        `graph       ${imported.ops.length} nodes (${imported.producer || 'unknown producer'}, opset ${imported.opset}): input [${(result.input_shape as unknown[]).join(',')}] (${imported.input.kind}) → output [${(result.output_shape as unknown[]).join(',')}]${imported.outputLink ? ` (${imported.outputLink})` : ''}\n`,
      );
      io.out(`parameters  ${result.parameters}\n`);
      for (const n of imported.notes) io.out(`note        ${n}\n`);
      if (flags.save) io.out(`saved       ${result.saved} (${result.file_bytes} bytes)\n`);
    }
    return 0;
  },
});
