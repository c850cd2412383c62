import { decodeText, encodeText, outsideVocabulary } from '../../data/text.js';
import { quote, terminalText } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { generate } from '../../train/generate.js';
import { UsageError } from '../args.js';
import { runtimeFlags } from '../runtime.js';
import { defineCommand } from '../command.js';
import { loadTextModel } from '../text-model.js';

export const command = defineCommand({
  name: 'generate',
  summary: 'continue a prompt with a saved next-character model',
  usage: 'paralens generate --load FILE --prompt TEXT --tokens N [--temperature X] [--top-k K] [--seed S] [--json]',
  description: `Samples N characters after TEXT from a model 'paralens train' saved after training on text data,
and prints them (with --json: {"text": …}); the same seed gives the same text. Decoding is incremental:
attention keeps a key/value cache, so each character costs one position of work per layer, not a full
pass. The model sees at most its training context; when that window is full it is refilled with its last
half. --temperature 0 takes the most likely character each time; --top-k K samples among the K most likely.
Characters of the prompt outside the model's vocabulary read as the unknown id (the one id for
all characters the training text lacked); a warning on stderr names them, and --json lists them as "unknown".`,
  flags: {
    ...runtimeFlags,
    load: { type: 'string', help: 'the .safetensors model file' },
    prompt: { type: 'string', help: 'the text to continue (at least one character)' },
    tokens: { type: 'int', help: 'how many characters to generate', default: 200, range: 'nonnegative' },
    temperature: { type: 'number', help: 'softmax temperature (0: greedy)', default: 1, range: 'nonnegative' },
    'top-k': { type: 'int', help: 'sample among the K most likely characters (0: all)', default: 0, range: 'nonnegative' },
    seed: { type: 'int', help: 'random seed of the sampling', default: 0 },
  },
  async run(flags, io) {
    if (!flags.load) throw new UsageError('generate: --load FILE is required');
    if (!flags.prompt) throw new UsageError('generate: --prompt TEXT is required (at least one character)');
    const lm = await loadTextModel(flags.load, 'generate');
    const prompt = Array.from(encodeText(flags.prompt, lm.vocabulary));
    const unknown = outsideVocabulary(flags.prompt, lm.vocabulary);
    if (unknown.length)
      io.err(
        `generate: warning: the prompt has ${unknown.length === 1 ? 'a character' : `${unknown.length} characters`} outside the model's vocabulary (${unknown.map((c) => quote(c)).join(', ')}), read as the unknown id\n`,
      );
    const t0 = performance.now();
    const ids = generate(lm.model, lm.theta, prompt, flags.tokens, {
      window: lm.context,
      rng: new Rng(flags.seed),
      temperature: flags.temperature,
      topK: flags['top-k'],
    });
    const text = decodeText(ids, lm.vocabulary);
    if (flags.json)
      io.out(JSON.stringify({ text, prompt: flags.prompt, unknown, tokens: ids.length, seed: flags.seed, seconds: (performance.now() - t0) / 1000 }) + '\n');
    else io.out(`${terminalText(text)}\n`); // the vocabulary comes from the model file: no escape sequences reach the terminal
    return 0;
  },
});
