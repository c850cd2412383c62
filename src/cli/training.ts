import { lossNames } from '../nn/loss.js';
import { optimizerNames } from '../optim/by-name.js';
import { scheduleNames } from '../optim/schedule.js';
import type { RunSettings } from '../train/run.js';
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
 * The settings of a run from the parsed training flags, read once: what the run
 * (train/run.ts), its checkpoints and its model file are made of.
 */
export function runSettings(flags: ParsedFlags): RunSettings {
  return {
    epochs: flags.epochs as number,
    steps: flags.steps as number | undefined,
    batch: flags.batch as number,
    lr: flags.lr as number,
    optimizer: (flags.optimizer as string | undefined) ?? 'sgd',
    loss: flags.loss as string | undefined,
    schedule: flags.schedule as string | undefined,
    seed: flags.seed as number,
    valFraction: flags['val-fraction'] as number | undefined,
    context: flags.context as number | undefined,
  };
}
