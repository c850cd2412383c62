// Budgeted fuzzing of the files the CLI reads (issue 23): safetensors model files, checkpoints,
// CSV and IDX (gzipped or not) — each case a real `paralens` command in a memory-capped child
// (budget.ts): exit 0, 1 or 2 within 5 s of CPU and 1 GiB, one line on error, never E_INTERNAL.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/io/model-file.js';
import { encodeSafetensors } from '../../src/io/safetensors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { encodeCheckpoint, Trainer } from '../../src/train/index.js';
import type { TrainerSnapshot } from '../../src/train/trainer.js';
import { moons } from '../../src/data/generated.js';
import { bce } from '../../src/nn/loss.js';
import { mutate } from './cleanly.js';
import { fuzzCli } from './budget.js';
import type { Case } from './budget.js';
import {
  byteMutations,
  compressed,
  csvText,
  fashionDir,
  FUZZ_CASES,
  FUZZ_SEED,
  gzipMembers,
  hostileHeaders,
  idx,
  npyFile,
  rawText,
  sample,
  specExpr,
  specialFile,
} from './generators.js';
import type { SpecialFile } from './budget.js';
import { gzipSync } from 'node:zlib';
import { zipBytes } from '../data/npy-files.js';

const TIMEOUT = 600_000 + 1000 * FUZZ_CASES;

/** Model files paralens writes: dense, convolutional, equivariant, a residual block. */
const MODELS = [
  'dense(2,4) >> tanh >> dense(4,1)',
  'conv2d(1,2,3) >> relu >> flatten >> dense(8,2)',
  'equivariant(S(4),V,V+T(0)) >> gated(S(4),V) >> equivariant(S(4),V,T(0))',
  'residual(dense(3,3) >> tanh) >> dense(3,1)',
];
const modelFiles = MODELS.map((s) => {
  const m = s.startsWith('conv2d') ? parseSpec(s).at([1, 4, 4]) : parseSpec(s);
  return encodeModel(m, m.init(1), { classes: ['a', 'b'], loss: 'bce' });
});

/** A header around one stand-in tensor: what a hostile file can claim in its metadata. */
const hostileHeader = fc
  .tuple(specExpr, fc.option(fc.oneof(fc.constantFrom('[4]', '[1,28,28]', '[1e9]', '[-1]', 'x', '[]'), rawText)), fc.option(rawText))
  .map(([spec, shape, training]) =>
    encodeSafetensors([{ name: 'weight', tensor: Tensor.of([1, 2, 3, 4], [2, 2]) }], {
      format: 'paralens',
      spec,
      ...(shape !== null ? { input_shape: shape } : {}),
      ...(training !== null ? { training } : {}),
    }),
  );

const modelBytes: fc.Arbitrary<Uint8Array | SpecialFile> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...modelFiles), byteMutations).map(([b, o]) => mutate(b, o)) },
  { weight: 2, arbitrary: hostileHeader },
  { weight: 1, arbitrary: fc.constantFrom(...modelFiles) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  // issue 32: headers nesting deep, with millions of keys or tensors, BOMs and 2.0 as a size
  { weight: 2, arbitrary: hostileHeaders },
);

/** A checkpoint of a short Adam run on moons (the CLI's settings), and its snapshot for state-level mutations. */
const CK_ARGS = [
  'train',
  '--model',
  'dense(2,8) >> tanh >> dense(8,1)',
  '--data',
  'moons',
  '--batch',
  '16',
  '--optimizer',
  'adam',
  '--lr',
  '0.01',
  '--seed',
  '1',
  '--epochs',
  '3',
  '--json',
];
function checkpointCase(): fc.Arbitrary<Uint8Array> {
  const model = parseSpec('dense(2,8) >> tanh >> dense(8,1)');
  const data = moons(200, 0.1, 1);
  const t = new Trainer(
    model,
    { ...data, x: data.x.rows(0, 160), y: data.y.rows(0, 160), labels: data.labels?.subarray(0, 160) },
    { loss: bce, optimizer: 'adam', lr: 0.01, batch: 16, seed: 1 },
  );
  t.runEpoch();
  const settings = { spec: String(t.model), data: 'moons', rows: 160, loss: 'bce', optimizer: 'adam', lr: 0.01, batch: 16, seed: 1 };
  const base = t.snapshot();
  const edits: ((s: TrainerSnapshot) => void)[] = [
    (s) => (s.theta[0]!.data[0] = NaN),
    (s) => (s.optimizer.slots.m![0] = Tensor.zeros([1])),
    (s) => delete s.optimizer.slots.v,
    (s) => (s.optimizer.t = -1),
    (s) => (s.rng = [0, 0, 0, 0]),
    (s) => (s.optimizer.slots.v![1]!.data[0] = -2),
    (s) => (s.epoch = 10 ** 9),
    (s) => (s.order = s.order.subarray(1)),
    (s) => (s.optimizer.name = 'sgd'),
    () => {},
  ];
  const clone = (): TrainerSnapshot => ({
    ...base,
    theta: base.theta.map((x) => x.clone()),
    optimizer: { ...base.optimizer, slots: Object.fromEntries(Object.entries(base.optimizer.slots).map(([k, v]) => [k, v.map((x) => x.clone())])) },
    rng: [...base.rng],
    order: Int32Array.from(base.order),
  });
  const edited = fc.nat(edits.length - 1).map((i) => {
    const s = clone();
    edits[i]!(s);
    return encodeCheckpoint(t.model, s, settings);
  });
  return fc.oneof(
    edited,
    fc.tuple(edited, byteMutations).map(([b, o]) => mutate(b, o)),
  );
}

describe('budgeted fuzzing of files (child processes)', () => {
  it(
    'safetensors model files: predict --load and export --load',
    async () => {
      const cmd = fc
        .tuple(modelBytes, fc.boolean(), fc.constantFrom('1,2', '1,2,3', '0,0;1,1', '1,2,3,4', '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16'))
        .map(([b, exp, input]): Case => ({
          argv: exp
            ? ['export', '--load', '{dir}/m.safetensors', '--onnx', '{dir}/m.onnx']
            : ['predict', '--load', '{dir}/m.safetensors', '--input', input, '--json'],
          files: { 'm.safetensors': b },
        }));
      expect((await fuzzCli('safetensors', sample(cmd, FUZZ_CASES, 11), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'checkpoints: train --resume with damaged and doctored checkpoints',
    async () => {
      const cmd = checkpointCase().map((b): Case => ({ argv: [...CK_ARGS, '--resume', '{dir}/ck'], files: { 'ck/checkpoint.safetensors': b } }));
      expect((await fuzzCli('checkpoints', sample(cmd, FUZZ_CASES, 12), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'CSV: predict --csv and kmeans --csv',
    async () => {
      const m = parseSpec('dense(2,4) >> tanh >> dense(4,1)');
      const model = encodeModel(m, m.init(1), { classes: ['a', 'b'], loss: 'bce' });
      const cmd = fc.tuple(csvText, fc.boolean()).map(([text, km]): Case => ({
        argv: km
          ? ['kmeans', '--csv', '{dir}/x.csv', '--k', '2', '--restarts', '2', '--json']
          : ['predict', '--load', '{dir}/m.safetensors', '--csv', '{dir}/x.csv', '--json'],
        files: { 'x.csv': text, 'm.safetensors': model },
      }));
      expect((await fuzzCli('CSV', sample(cmd, FUZZ_CASES, 13), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'NumPy and compressed files: .npy with zero-sized and huge shapes, .npz with lying sizes, gzipped tables and IDX of every ratio',
    async () => {
      const entry = fc.tuple(npyFile, fc.boolean(), fc.constantFrom(1, 1, 10, 1000, 2 ** 20));
      const cmd = fc.oneof(
        fc.tuple(npyFile, fc.option(npyFile)).map(([x, y]): Case => ({
          argv: ['train', '--model', 'dense(2,1)', '--data', '{dir}/x.npy', ...(y ? ['--target', '{dir}/y.npy'] : []), '--epochs', '1', '--json'],
          files: { 'x.npy': x, ...(y ? { 'y.npy': y } : {}) },
        })),
        fc.array(entry, { minLength: 1, maxLength: 3 }).map((es): Case => {
          const zip = zipBytes(es.map(([data, deflate], i) => ({ name: i === 0 ? 'x.npy' : i === 1 ? 'y.npy' : `a${i}.npy`, data, deflate })));
          // a lying entry declares `factor` times its size (local and central headers of the first entry)
          const [first, , factor] = es[0]!;
          if (factor > 1) {
            const v = new DataView(zip.buffer);
            const declared = Math.min(2 ** 32 - 1, first.length * factor);
            v.setUint32(22, declared, true);
            const cd = v.getUint32(zip.length - 22 + 16, true); // the end record says where the central directory starts
            v.setUint32(cd + 24, declared, true);
          }
          return { argv: ['train', '--model', 'dense(2,1)', '--data', '{dir}/a.npz', '--epochs', '1', '--json'], files: { 'a.npz': zip } };
        }),
        compressed.map(([text, block, members]): Case => ({
          argv: ['kmeans', '--csv', '{dir}/t.csv.gz', '--k', '2', '--json'],
          files: { 't.csv.gz': gzipMembers(text, block, members) },
        })),
        compressed.map(([, block, members]): Case => {
          const n = Math.max(1, Math.floor((block * members) / 784));
          return {
            argv: ['train', '--model', 'dense(784,10)', '--data', 'idx:{dir}/i', '--epochs', '1', '--json'],
            files: {
              'i/train-images-idx3-ubyte.gz': Buffer.concat([gzipSync(idx([n, 28, 28], new Uint8Array(0))), gzipMembers('\0', block, members)]),
              'i/train-labels-idx1-ubyte.gz': gzipSync(idx([n], new Uint8Array(Math.min(n, 1 << 20)))),
            },
          };
        }),
      );
      expect((await fuzzCli('NumPy and compressed files', sample(cmd, FUZZ_CASES, 15), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'special files: FIFOs, links to devices, directories and sparse files wherever a command reads a file',
    async () => {
      const m = parseSpec('dense(2,1)');
      const model = encodeModel(m, m.init(1), { classes: ['a', 'b'], loss: 'bce' });
      const at: fc.Arbitrary<string[]> = fc.constantFrom<string[]>(
        ['predict', '--load', '{dir}/f', '--input', '1,2'],
        ['export', '--load', '{dir}/f', '--onnx', '{dir}/o.onnx'],
        ['export', '--format', 'pytorch', '--load', '{dir}/f', '--out', '{dir}/p'],
        ['generate', '--load', '{dir}/f', '--prompt', 'a', '--tokens', '2'],
        ['train', '--model', 'dense(2,1)', '--data', 'xor', '--init', '{dir}/f', '--epochs', '1'],
        ['predict', '--load', '{dir}/m.safetensors', '--csv', '{dir}/f'],
        ['kmeans', '--csv', '{dir}/f.csv', '--k', '2'],
        ['train', '--model', 'dense(2,1)', '--data', '{dir}/f.npy', '--epochs', '1'],
        ['train', '--model', 'dense(2,1)', '--data', '{dir}/f.npz', '--epochs', '1'],
        ['train', '--model', 'dense(1,1)', '--data', 'text:{dir}/f', '--steps', '1'],
        ['train', '--model', 'dense(784,10)', '--data', 'idx:{dir}/i', '--epochs', '1'],
        ['train', '--model', 'dense(2,1)', '--data', 'moons', '--resume', '{dir}/ck', '--epochs', '1'],
      );
      const cmd = fc.tuple(at, specialFile).map(([argv, f]): Case => {
        const path = argv.find((a) => a.startsWith('{dir}/f'))?.slice('{dir}/'.length);
        const where = path ?? (argv.includes('idx:{dir}/i') ? 'i/train-images-idx3-ubyte' : 'ck/checkpoint.safetensors');
        return {
          argv,
          files: { [where]: f, 'm.safetensors': model, ...(where.startsWith('i/') ? { 'i/train-labels-idx1-ubyte': idx([2], new Uint8Array(2)) } : {}) },
        };
      });
      expect((await fuzzCli('special files', sample(cmd, FUZZ_CASES, 16), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'IDX: train --data fashion-mnist --data-dir with damaged, gzipped and oversized files',
    async () => {
      const cmd = fashionDir.map((files): Case => ({
        argv: ['train', '--model', 'dense(784,10)', '--data', 'fashion-mnist', '--data-dir', '{dir}', '--epochs', '1', '--batch', '16', '--json'],
        files,
      }));
      expect((await fuzzCli('IDX', sample(cmd, FUZZ_CASES, 14), FUZZ_SEED)).cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );
});
