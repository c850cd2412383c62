import { lossNames } from '../nn/loss.js';
import { optimizerNames } from '../optim/by-name.js';
import { scheduleNames } from '../optim/schedule.js';
import type { RunSettings } from '../train/run.js';
import type { FlagSpec, Flags } from './args.js';

/**
 * The flags of every command that trains, defined once: one name, type, range, help text and
 * default each. A command whose documented recipe differs (topos info trains seed 000's XOR
 * recipe by default, distill uses Adam) says so where it takes the flags, and its --help
 * shows the difference.
 */
const TRAINING_FLAGS = {
  epochs: { type: 'int', help: 'number of epochs', default: 100, range: 'positive' },
  batch: { type: 'int', help: 'minibatch size (1 = per-sample SGD as in seed 000; 0 = the whole set)', default: 0, range: 'nonnegative' },
  lr: { type: 'number', help: 'learning rate', default: 0.1, range: 'positive' },
  optimizer: { type: 'string', help: `optimiser: ${optimizerNames().join(', ')}`, default: 'sgd' },
  loss: {
    type: 'string',
    help: `loss: ${lossNames().join(', ')} (default: bce for one output, softmax-cross-entropy for several classes, mse for regression)`,
  },
  seed: { type: 'int', help: 'random seed (initialisation, shuffling, splits)', default: 0 },
  schedule: {
    type: 'string',
    choices: scheduleNames(),
    default: 'constant',
    help: 'learning-rate schedule over the run: constant; cosine (to 0); step (×0.1 after each third); warmup (linear over the first 5 %, then cosine)',
  },
  clip: {
    type: 'number',
    range: 'positive',
    help: "clip the gradient to this global L2 norm before each update (PyTorch's clip_grad_norm_)",
  },
  'val-fraction': {
    type: 'number',
    range: 'unit-open',
    help: 'hold out this fraction of the training rows (stratified, seeded) and report validation loss and accuracy during training',
  },
} as const satisfies Flags;

export type TrainingFlag = keyof typeof TRAINING_FLAGS;

/** A shared definition S with a command's recipe R laid over it. */
type WithRecipe<S, R> = Omit<S, keyof R> & R;

/** The training flags named in `names` (all of them by default), with a command's own recipe laid over the shared definitions. */
export function trainingFlags(): typeof TRAINING_FLAGS;
export function trainingFlags<const N extends TrainingFlag, const R extends { readonly [K in N]?: Partial<FlagSpec> } = {}>(
  names: readonly N[],
  recipe?: R,
): { readonly [K in N]: K extends keyof R ? WithRecipe<(typeof TRAINING_FLAGS)[K], R[K]> : (typeof TRAINING_FLAGS)[K] };
export function trainingFlags(names?: readonly TrainingFlag[], recipe: { readonly [K in TrainingFlag]?: Partial<FlagSpec> } = {}): Flags {
  if (names === undefined) return TRAINING_FLAGS;
  return Object.fromEntries(names.map((n) => [n, { ...TRAINING_FLAGS[n], ...recipe[n] }]));
}

/**
 * The settings of a run from the parsed training flags, read once: what the run
 * (train/run.ts), its checkpoints and its model file are made of. A command without --steps,
 * --val-fraction or --context (topos info) runs whole epochs of rows.
 */
export function runSettings(flags: {
  readonly epochs: number;
  readonly batch: number;
  readonly lr: number;
  readonly optimizer: string;
  readonly seed: number;
  readonly loss?: string;
  readonly schedule?: string;
  readonly steps?: number;
  readonly 'val-fraction'?: number;
  readonly context?: number;
  readonly clip?: number;
  readonly bptt?: number;
}): RunSettings {
  return {
    epochs: flags.epochs,
    steps: flags.steps,
    batch: flags.batch,
    lr: flags.lr,
    optimizer: flags.optimizer,
    loss: flags.loss,
    schedule: flags.schedule,
    seed: flags.seed,
    valFraction: flags['val-fraction'],
    context: flags.context,
    clip: flags.clip,
    bptt: flags.bptt,
  };
}
