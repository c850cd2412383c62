import { parseSpec } from '../catalogue/index.js';
import { vocabSize } from '../data/text.js';
import type { ModelFile } from '../io/model-file.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';

/** A next-character model as a model file of a text run keeps it (train/run-text.ts). */
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

/**
 * The next-character model of a model file: undefined when its training settings record no
 * vocabulary and context (it was not trained on text). Its spec is parsed again, unfixed.
 */
export function textModelOf(file: ModelFile): TextModel | undefined {
  const { vocabulary, context } = file.settings;
  if (typeof vocabulary !== 'string' || !(typeof context === 'number' && Number.isInteger(context) && context > 0)) return undefined;
  const chars = Array.from(vocabulary);
  // decodeModel has read the spec (a file without one does not load)
  return { model: parseSpec(file.metadata.spec!), theta: file.theta, vocabulary: chars, V: vocabSize(chars), context };
}
