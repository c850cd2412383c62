import { quote } from '../../errors.js';
import { stringDiagram } from '../../draw/diagram.js';
import { parseSpec } from '../../catalogue/index.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { writeFileAtomic } from '../../io/node-fs.js';
import { MAX_UNROLL } from '../../draw/recurrent-layout.js';

export const command = defineCommand({
  name: 'draw',
  summary: 'draw a model as an SVG string diagram',
  usage: 'paralens draw --model SPEC [--unroll T] [-o FILE.svg | --out FILE.svg]',
  description: `Draws the morphism that SPEC denotes as a string diagram: boxes for morphisms, wires labelled
with their shapes, parameter wires entering from above (the Para picture), products stacked,
copy/add as dots, residuals as a wire around the box. A recurrent layer (lstm, gru, scan(…), fold(…), …)
is the algebra's diagram: its cell with the state wire looping back from s₀ = 0; --unroll T draws it
unrolled over T steps instead (the composite whose pullback is backpropagation through time; T ≤ ${MAX_UNROLL}).
Without --out the SVG goes to stdout.`,
  flags: {
    model: { type: 'string', help: 'model spec string' },
    out: { type: 'string', help: 'write the SVG to this file', short: 'o', output: true },
    unroll: { type: 'int', help: `draw recurrent layers unrolled over T steps (1 … ${MAX_UNROLL})`, range: 'positive' },
  },
  async run(flags, io) {
    if (!flags.model) throw new UsageError('draw: --model SPEC is required, e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
    const f = parseSpec(String(flags.model));
    const unroll = flags.unroll;
    if (unroll !== undefined && unroll > MAX_UNROLL) throw new UsageError(`draw: --unroll draws at most ${MAX_UNROLL} steps, got ${unroll}`);
    const svg = stringDiagram(f, String(f), { unroll });
    const out = flags.out;
    if (out) {
      if (!out.endsWith('.svg')) throw new UsageError(`draw: the output file should end in .svg, got ${quote(out)}`);
      await writeFileAtomic(out, svg, { force: Boolean(flags.force) });
    }
    if (flags.json) io.out(JSON.stringify({ model: String(f), file: out ?? null, svg: out ? undefined : svg, bytes: svg.length }) + '\n');
    else if (!out) io.out(svg + '\n');
    else io.out(`wrote ${out} (${svg.length} bytes)\n`);
    return 0;
  },
});
