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
import { byteMutations, csvText, fashionDir, FUZZ_CASES, FUZZ_SEED, rawText, sample, specExpr } from './generators.js';

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

const modelBytes = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...modelFiles), byteMutations).map(([b, o]) => mutate(b, o)) },
  { weight: 2, arbitrary: hostileHeader },
  { weight: 1, arbitrary: fc.constantFrom(...modelFiles) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
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
