import { quote } from '../../errors.js';
import { resolve } from 'node:path';
import { writeFileAtomic } from '../../io/node-fs.js';
import { buildOnnx, ONNX_OPSET, ONNX_OPSETS } from '../../io/onnx/export.js';
import { loadModel } from '../../io/node.js';
import { checkWithOnnxRuntime } from '../../io/onnx/node-check.js';
import { parseDecimal, UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../command.js';
import type { Flags, ParsedFlags } from '../args.js';
import { fmt } from '../progress.js';
import { exportPytorch } from './export-pytorch.js';

/** Parses '1,28,28' into a shape. */
function parseShape(text: string, flag: string): number[] {
  const dims = text.split(/[,x×]/).map((s) => parseDecimal(s.trim()) ?? NaN);
  if (dims.length === 0 || !dims.every((d) => Number.isInteger(d) && d > 0)) {
    throw new UsageError(`export: --${flag} expects sizes like 1,28,28, got ${quote(text)}`);
  }
  return dims;
}

const exportFlags = {
  load: { type: 'string', help: 'model file written by paralens train --save' },
  format: { type: 'string', help: 'onnx or pytorch', default: 'onnx', choices: ['onnx', 'pytorch'] },
  onnx: { type: 'string', help: 'where to write the ONNX model', output: true },
  out: { type: 'string', help: 'with --format pytorch: the directory to write the project into (created if missing)' },
  'input-shape': { type: 'string', help: 'per-sample input shape, for a model file that does not record one (e.g. 1,28,28)' },
  check: { type: 'boolean', help: 'run the exported model in ONNX Runtime and compare with paralens on 64 random inputs' },
  opset: { type: 'int', help: `the ONNX opset to write, ${ONNX_OPSETS[0]} to ${ONNX_OPSETS[ONNX_OPSETS.length - 1]} (default ${ONNX_OPSET})` },
} as const satisfies Flags;

export const command = defineCommand({
  name: 'export',
  summary: 'export a saved model to ONNX (checked in ONNX Runtime with --check) or as a PyTorch project',
  usage:
    'paralens export --load FILE.safetensors --onnx OUT.onnx [--opset N] [--input-shape C,H,W] [--check]\n       paralens export --format pytorch --load FILE.safetensors --out DIR [--input-shape C,H,W]',
  description: `--format pytorch writes DIR/model.py (class Model(torch.nn.Module), one submodule per layer, and
load(path)), DIR/weights.safetensors (the parameters under Model's state_dict names, with the fixed
bases of equivariant layers) and DIR/train.py, which continues training with the loss, optimiser,
schedule and data the model file records, on one process or as DistributedDataParallel
(python3 DIR/train.py --processes 2), and writes DIR/trained.safetensors, a paralens model file.
Built-in data sets are written into DIR/data.safetensors (the very rows of the paralens run);
Fashion-MNIST is read from its IDX files. Layers without a PyTorch rule are refused with exit 2,
each named. See docs/scale.md.

--format onnx (the default) writes the model saved in FILE (paralens train ... --save FILE) as an ONNX model
at --opset N (${ONNX_OPSETS[0]} to ${ONNX_OPSETS[ONNX_OPSETS.length - 1]}, default ${ONNX_OPSET}; the file carries the IR version that opset needs: 7 for 13–14,
8 for 15–18, 9 for 19–20, so onnx 1.12's checker reads opsets up to 17): input 'input' [batch, ...],
output 'output' [batch, ...], parameters as float32 initializers named as in the model file.
Dense, activations, softmax, convolution, pooling, flatten, dropout (identity), norms, embedding,
attention, the transformer block, residual (Add), parallel structure (Split + Concat), every
operator lens and graph(…) are exported (an operator newer than the opset written out in older
ones: Gelu before 20, LayerNormalization before 17); any other layer is refused with exit 2,
naming it (docs/onnx.md lists the layers exempt from the round trip, and why). --check runs the written model in onnxruntime-node on random inputs and
reports the largest difference from paralens (exit 1 if it exceeds 1e-4).`,
  flags: exportFlags,
  async run(flags, io) {
    if (!flags.load) throw new UsageError('export: --load FILE is required (a model saved with paralens train --save FILE)');
    if (flags.format === 'pytorch') return runPytorch(flags.load, flags, io);
    if (!flags.onnx) throw new UsageError('export: --onnx OUT.onnx is required');
    if (resolve(flags.onnx) === resolve(flags.load)) throw new UsageError('export: --onnx must not be the model file given to --load');
    const json = Boolean(flags.json);
    const file = await loadModel(flags.load);
    const inputShape = flags['input-shape'] ? parseShape(flags['input-shape'], 'input-shape') : undefined;
    const opset = flags.opset ?? ONNX_OPSET;
    if (!(ONNX_OPSETS as readonly number[]).includes(opset))
      throw new UsageError(`export: --opset expects one of ${ONNX_OPSETS.join(', ')}, got ${quote(String(flags.opset))}`);
    const out = buildOnnx(file.model, file.theta, { inputShape, opset });
    await writeFileAtomic(flags.onnx, out.bytes, { force: Boolean(flags.force) });
    const check = flags.check ? await checkWithOnnxRuntime(out.bytes, out.model, file.theta) : undefined;
    const result = {
      onnx: flags.onnx,
      bytes: out.bytes.length,
      opset: out.opset,
      model: String(out.model),
      input_shape: ['batch', ...out.inputShape],
      output_shape: ['batch', ...out.outputShape],
      nodes: out.ops.length,
      ops: out.ops,
      ...(check ? { check: { runtime: check.runtime, rows: check.rows, max_abs_diff: check.maxAbsDiff } } : {}),
    };
    if (json) io.out(JSON.stringify(result) + '\n');
    else {
      io.out(`wrote       ${result.onnx} (${result.bytes} bytes, ONNX opset ${result.opset})\n`);
      io.out(`model       ${result.model}\n`);
      io.out(
        `graph       input [${result.input_shape.join(',')}] → output [${result.output_shape.join(',')}], ${result.nodes} nodes: ${result.ops.join(' → ')}\n`,
      );
      if (check) io.out(`check       ${check.runtime} on ${check.rows} random inputs: max |onnx − paralens| = ${fmt(check.maxAbsDiff, 3)}\n`);
    }
    return check && !(check.maxAbsDiff <= 1e-4) ? 1 : 0;
  },
});

/** export --format pytorch. */
async function runPytorch(load: string, flags: ParsedFlags<typeof exportFlags>, io: CliIO): Promise<number> {
  if (!flags.out) throw new UsageError('export: --format pytorch needs --out DIR (the directory for model.py, weights.safetensors and train.py)');
  if (flags.onnx || flags.check || flags.opset !== undefined)
    throw new UsageError('export: --onnx, --opset and --check belong to --format onnx, not --format pytorch');
  const file = await loadModel(load);
  const inputShape = flags['input-shape'] ? parseShape(flags['input-shape'], 'input-shape') : undefined;
  const result = await exportPytorch(file, flags.out, inputShape, { force: Boolean(flags.force) });
  if (flags.json) io.out(JSON.stringify(result) + '\n');
  else {
    io.out(
      `wrote       ${Object.entries(result.files)
        .map(([n, b]) => `${n} (${b} bytes)`)
        .join(', ')} into ${result.out}\n`,
    );
    io.out(`model       ${result.model}\n`);
    const { data } = result;
    io.out(
      `data        ${data.kind === 'file' ? `${data.path} (the rows of the paralens run)` : data.kind === 'idx' ? `IDX files in ${data.dir}` : 'none recorded: give train.py --data FILE.safetensors'}\n`,
    );
    io.out(`train       ${result.train}\n`);
  }
  return 0;
}
