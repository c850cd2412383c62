import { ParalensError } from '../errors.js';
import { vocabSize } from '../data/text.js';
import { loadModel } from '../io/node.js';
import type { Para } from '../para/para.js';
import { parseSpec } from '../catalogue/index.js';
import type { Tensor } from '../tensor/tensor.js';
import { UsageError } from './args.js';

/** A next-character model read from a file `paralens train` wrote on text data. */
export interface TextModel {
  /** The morphism on windows of any length it can take (its spec, not fixed to the file's input shape). */
  readonly model: Para;
  readonly theta: Tensor[];
  /** Id i is vocabulary[i]; the last id is the unknown character. */
  readonly vocabulary: readonly string[];
  readonly V: number;
  /** The context it was trained at. */
  readonly context: number;
}

/** Loads a text model: the file must record the vocabulary and context of its training (metadata.training). */
export async function loadTextModel(path: string, command: string): Promise<TextModel> {
  const file = await loadModel(path);
  const { vocabulary, context } = file.settings as { vocabulary?: unknown; context?: unknown };
  if (typeof vocabulary !== 'string' || !(typeof context === 'number' && Number.isInteger(context) && context > 0)) {
    throw new UsageError(
      `${command}: ${path} was not trained on text data (its metadata records no vocabulary and context); train it with --data text:PATH or fortunes`,
    );
  }
  const chars = Array.from(vocabulary);
  let model: Para;
  try {
    model = parseSpec(file.metadata.spec!);
  } catch (e) {
    if (e instanceof ParalensError) throw new UsageError(`${command}: ${path}: ${e.message}`);
    throw e;
  }
  return { model, theta: file.theta, vocabulary: chars, V: vocabSize(chars), context };
}
