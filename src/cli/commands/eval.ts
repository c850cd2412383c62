import { shiftDefect, bitsPerChar } from '../../train/text-metrics.js';
import { UsageError } from '../args.js';
import { runtimeFlags } from '../runtime.js';
import { defineCommand } from '../command.js';
import { fmt } from '../progress.js';
import { isTextData, loadTextData, TEXT_DATA } from '../data.js';
import { loadTextModel } from '../text-model.js';

export const command = defineCommand({
  name: 'eval',
  summary: 'evaluate a saved next-character model on the validation text (bits per character)',
  usage: 'paralens eval --load FILE --data NAME [--context T] [--shift S] [--json]',
  description: `Reads a model that 'paralens train' saved after training on text data, and reports its mean
cross-entropy in bits per character on the validation text (the last 10 % of NAME's characters): windows
of T characters (default: the training context) cover the text without overlap, and every character is
predicted from the ones before it in its window. Any T the model can take works: rope, relative and none
go beyond the training context (length generalisation); an absolute(Tmax) model refuses T > Tmax.
--shift S also reports the shift defect: the mean total-variation distance between the predictions with
each window at positions 0…T−1 and at S…S+T−1 (0 for attention that sees relative positions only).
Data: ${TEXT_DATA.join(', ')}.`,
  flags: {
    ...runtimeFlags,
    load: { type: 'string', help: 'the .safetensors model file' },
    data: { type: 'string', help: `text data set: ${TEXT_DATA.join(' | ')}` },
    context: { type: 'int', help: 'characters per evaluation window (default: the training context)', range: 'positive' },
    shift: { type: 'int', help: 'also measure the shift defect for this position shift', range: 'positive' },
    'data-dir': { type: 'string', help: 'directory of the fortune files (default /usr/share/games/fortunes)' },
  },
  async run(flags, io) {
    if (!flags.load) throw new UsageError('eval: --load FILE is required');
    if (!flags.data) throw new UsageError(`eval: --data NAME is required; text data: ${TEXT_DATA.join(', ')}`);
    if (!isTextData(flags.data)) throw new UsageError(`eval: --data must be text data (${TEXT_DATA.join(', ')}), got '${String(flags.data)}'`);
    const lm = await loadTextModel(flags.load, 'eval');
    const T = flags.context ?? lm.context;
    const model = lm.model.at([T]);
    const corpus = loadTextData(flags.data, { dataDir: flags['data-dir'], context: T, vocabulary: lm.vocabulary });
    const t0 = performance.now();
    const bits = bitsPerChar(model, lm.theta, corpus.val, T, lm.V);
    const shifted =
      flags.shift === undefined
        ? undefined
        : {
            shift: flags.shift,
            val_bits_per_char_shifted: bitsPerChar(model, lm.theta, corpus.val, T, lm.V, { positionOffset: flags.shift }),
            shift_defect: shiftDefect(model, lm.theta, corpus.val, T, lm.V, flags.shift),
          };
    const out = {
      model: String(model),
      data: corpus.name,
      context: T,
      trained_context: lm.context,
      val_characters: corpus.val.length,
      val_bits_per_char: bits,
      ...shifted,
      seconds: (performance.now() - t0) / 1000,
    };
    if (flags.json) io.out(JSON.stringify(out) + '\n');
    else {
      io.out(`model       ${out.model}\n`);
      io.out(`data        ${corpus.name} (${corpus.val.length} validation characters)\n`);
      io.out(`context     ${T} (trained at ${lm.context})\n`);
      io.out(`bits/char   ${fmt(bits)}\n`);
      if (shifted)
        io.out(`shift ${shifted.shift}    bits/char ${fmt(shifted.val_bits_per_char_shifted)}, defect ${fmt(shifted.shift_defect)} (mean total variation)\n`);
    }
    return 0;
  },
});
