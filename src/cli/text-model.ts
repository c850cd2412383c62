import { ParalensError } from '../errors.js';
import { loadModel } from '../io/node.js';
import { textModelOf } from '../train/text-model.js';
import type { TextModel } from '../train/text-model.js';
import { UsageError } from './args.js';

/** Loads the next-character model of a file `paralens train` wrote on text data; anything else is a usage error of `command`. */
export async function loadTextModel(path: string, command: string): Promise<TextModel> {
  const file = await loadModel(path);
  let lm: TextModel | undefined;
  try {
    lm = textModelOf(file);
  } catch (e) {
    if (e instanceof ParalensError) throw new UsageError(`${command}: ${path}: ${e.message}`);
    throw e;
  }
  if (!lm)
    throw new UsageError(
      `${command}: ${path} was not trained on text data (its metadata records no vocabulary and context); train it with --data text:PATH or fortunes`,
    );
  return lm;
}
