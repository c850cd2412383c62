import { textCorpus } from '../data/text.js';
import type { TextCorpus } from '../data/text.js';
import { readFortunes, readTextFile } from '../data/node-text.js';
import { UsageError } from './args.js';

/** The character-level data sets of the CLI: `text:PATH` (any UTF-8 file) and `fortunes` (Debian's package). */
export const TEXT_DATA = ['text:PATH', 'fortunes'] as const;

export function isTextData(name: string): boolean {
  return name === 'fortunes' || name.startsWith('text:');
}

/** The raw text of a text data set (`dataDir` overrides where fortunes looks). */
function readTextData(name: string, dataDir?: string): string {
  if (name === 'fortunes') return readFortunes(dataDir);
  const path = name.slice('text:'.length);
  if (!path) throw new UsageError('--data text:PATH needs a path, e.g. --data text:book.txt');
  return readTextFile(path);
}

/** A text data set split 90/10 into training and validation characters, with the training part's vocabulary (or the one given). */
export function loadTextData(name: string, opts: { dataDir?: string; context: number; vocabulary?: readonly string[] }): TextCorpus {
  return textCorpus(name, readTextData(name, opts.dataDir), { minWindow: opts.context, vocabulary: opts.vocabulary });
}
