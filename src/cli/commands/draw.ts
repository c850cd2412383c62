import { quote } from '../../errors.js';
import { stringDiagram } from '../../draw/diagram.js';
import { parseSpec } from '../../catalogue/index.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { writeFileAtomic } from '../../io/node-fs.js';
import { loadModel } from '../../io/node.js';
import type { Para } from '../../para/para.js';
import { MAX_UNROLL } from '../../draw/recurrent-layout.js';

export const command = defineCommand({
  name: 'draw',
  summary: 'draw a model as an SVG string diagram',
  usage: 'paralens draw (--model SPEC [--vocab N] | --load FILE) [--unroll T] [-o FILE.svg | --out FILE.svg]',
  description: `Draws the morphism that SPEC denotes as a string diagram: boxes for morphisms, wires labelled
with their shapes, parameter wires entering from above (the Para picture), products stacked,
copy/add as dots, residuals as a wire around the box; a long composite wraps into rows of at most 1400 px. A recurrent layer (lstm, gru, scan(…), fold(…), …)
is the algebra's diagram: its cell with the state wire looping back from s₀ = 0; --unroll T draws it
unrolled over T steps instead (the composite whose pullback is backpropagation through time; T ≤ ${MAX_UNROLL}).
--load FILE draws the model a file 'paralens train --save' wrote. In a spec, vocab stands for the vocabulary
size of text data: give it with --vocab N (a saved model has its own). Without --out the SVG goes to stdout;
the sizes reported are the SVG's UTF-8 bytes.`,
  flags: {
    model: { type: 'string', help: 'model spec string' },
    load: { type: 'string', help: 'draw the model of this file (written by paralens train --save) instead of --model' },
    vocab: { type: 'int', help: "the size vocab stands for in the spec (a text model's vocabulary size)", range: 'positive' },
    out: { type: 'string', help: 'write the SVG to this file', short: 'o', output: true },
    unroll: { type: 'int', help: `draw recurrent layers unrolled over T steps (1 … ${MAX_UNROLL})`, range: 'positive' },
  },
  async run(flags, io) {
    const { model: f } = await modelToDraw(flags.model, flags.load, flags.vocab);
    const unroll = flags.unroll;
    if (unroll !== undefined && unroll > MAX_UNROLL) throw new UsageError(`draw: --unroll draws at most ${MAX_UNROLL} steps, got ${unroll}`);
    const svg = stringDiagram(f, String(f), { unroll });
    const out = flags.out;
    if (out) {
      if (!out.endsWith('.svg')) throw new UsageError(`draw: the output file should end in .svg, got ${quote(out)}`);
      await writeFileAtomic(out, svg, { force: Boolean(flags.force) });
    }
    const bytes = Buffer.byteLength(svg, 'utf8'); // the labels hold ⊗, →, θ…: more bytes than characters
    if (flags.json) io.out(JSON.stringify({ model: String(f), file: out ?? null, svg: out ? undefined : svg, bytes }) + '\n');
    else if (!out) io.out(svg + '\n');
    else io.out(`wrote ${out} (${bytes} bytes)\n`);
    return 0;
  },
});

/** The morphism to draw: a spec (with `vocab` bound to --vocab) or the model of a saved file (wrapped: a Para has a `then`, composition, so it cannot be a promise's value). */
async function modelToDraw(spec: string | undefined, load: string | undefined, vocab: number | undefined): Promise<{ model: Para }> {
  if (spec !== undefined && load !== undefined) throw new UsageError('draw: give --model SPEC or --load FILE, not both');
  if (load !== undefined) {
    if (vocab !== undefined) throw new UsageError("draw: --vocab binds vocab in a --model spec; a file's model has its sizes already");
    return { model: (await loadModel(load)).model };
  }
  if (!spec) throw new UsageError('draw: --model SPEC or --load FILE is required, e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
  if (vocab === undefined && /\bvocab\b/.test(spec))
    throw new UsageError(
      'draw: the spec names vocab, the vocabulary size of text data: give it with --vocab N (e.g. --vocab 96), or draw a saved model with --load FILE',
    );
  return { model: parseSpec(spec, vocab === undefined ? {} : { constants: { vocab } }) };
}
