import { lossByName, lossForData, lossNames } from '../nn/loss.js';
import { optimizerNames } from '../optim/by-name.js';
import { scheduleByName, scheduleNames } from '../optim/schedule.js';
import type { Dataset } from '../data/dataset.js';
import type { TrainRunOptions } from '../train/train.js';
import type { FlagSpec, Flags, ParsedFlags } from './args.js';

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

/** The training flags named in `names` (all of them by default), with a command's own recipe laid over the shared definitions. */
export function trainingFlags(
  names: readonly TrainingFlag[] = Object.keys(TRAINING_FLAGS) as TrainingFlag[],
  recipe: Partial<Record<TrainingFlag, Partial<FlagSpec>>> = {},
): Flags {
  return Object.fromEntries(names.map((n) => [n, { ...TRAINING_FLAGS[n], ...recipe[n] } as FlagSpec]));
}

/**
 * What `train` needs from the parsed training flags: the loss (named, or the one that fits the
 * data), the optimiser, its rate and schedule (over all the steps of the run), the minibatch
 * size (0: the whole set) and the seed.
 */
export function trainRunOptions(flags: ParsedFlags, data: Dataset): TrainRunOptions {
  const epochs = flags.epochs as number;
  const batch = (flags.batch as number) || undefined;
  // a command with --steps (train) runs that many; the others run whole epochs
  const steps = (flags.steps as number | undefined) ?? epochs * Math.ceil(data.x.batch / Math.min(batch ?? data.x.batch, data.x.batch));
  const schedule = flags.schedule !== undefined && flags.schedule !== 'constant' ? scheduleByName(flags.schedule as string, steps) : undefined;
  return {
    loss: flags.loss !== undefined ? lossByName(flags.loss as string) : lossForData(data),
    epochs,
    batch,
    lr: flags.lr as number,
    optimizer: (flags.optimizer as string | undefined) ?? 'sgd',
    ...(schedule ? { optimizerOptions: { schedule } } : {}),
    seed: flags.seed as number,
    ...recurrentOptions(flags),
  };
}

/** --clip X (every trainer) and --bptt K (a command that takes it), as TrainOptions. */
export function recurrentOptions(flags: ParsedFlags): { clip?: number; bptt?: number } {
  return { ...(flags.clip !== undefined ? { clip: flags.clip as number } : {}), ...(flags.bptt !== undefined ? { bptt: flags.bptt as number } : {}) };
}
