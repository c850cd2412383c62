import { textCorpus } from '../../data/text.js';
import { readFortunes } from '../../data/node-text.js';
import { ParalensError } from '../../errors.js';
import { layerDefects, positionStudy } from '../../experiments/equivariant/attention-positions.js';
import type { PositionStudyRow } from '../../experiments/equivariant/attention-positions.js';
import { fmt, table } from '../progress.js';
import type { TourSection } from './section.js';

/** The tour's small version of docs/attention.md: a 1-block model, 300 steps, 20 000 validation characters. */
const STUDY = { d: 32, heads: 4, ff: 64, blocks: 1, context: 32, batch: 16, steps: 300, lr: 0.003, lengths: [32, 64], valCharacters: 20000 };

export const section: TourSection = {
  id: 'attention',
  title: 'Attention derived from symmetry: position mechanisms as ends (seed 001)',
  async run({ seed }) {
    const lines: string[] = [];
    const defects = layerDefects(seed);
    lines.push('One random attention layer per position mechanism (T = 8, float64): relative change of the output');
    lines.push('when every position moves by 13, and distance from f(σx) = σf(x) for a random permutation σ:');
    lines.push(
      table(
        ['position', 'mask', 'shift defect', 'permutation defect'],
        defects.map((r) => [r.position, r.mask, fmt(r.shift, 2), fmt(r.permutation, 2)]),
      ),
    );
    lines.push('rope (the SO(2) end) and relative (the translation end) see k − q only; none with no mask is the');
    lines.push('S(n) end; absolute is the baseline without a symmetry, and the causal mask breaks S(n) for all.');
    let rows: PositionStudyRow[] | undefined, why: string | undefined;
    try {
      const corpus = textCorpus('fortunes', readFortunes(), { minWindow: 64 });
      rows = positionStudy(corpus, { ...STUDY, seed });
    } catch (e) {
      if (!(e instanceof ParalensError)) throw e;
      why = e.message;
    }
    lines.push('');
    if (rows) {
      lines.push(
        `The same ${STUDY.blocks}-block model (d ${STUDY.d}, ${STUDY.heads} heads) on fortunes, ${STUDY.steps} Adam steps at T = ${STUDY.context}; validation bits per char`,
      );
      lines.push(`on the first ${STUDY.valCharacters} validation characters, at T and 2T, and the shift defect (mean total variation) at T/2:`);
      lines.push(
        table(
          ['position', ...STUDY.lengths.map((T) => `T = ${T}`), 'shift defect'],
          rows.map((r) => [
            r.position,
            ...STUDY.lengths.map((T) => (r.valBitsPerChar[T] === null ? 'cannot' : fmt(r.valBitsPerChar[T]!))),
            fmt(r.shiftDefect, 2),
          ]),
        ),
      );
      lines.push('The full study (2 blocks, d 64, 2000 steps, T = 64 → 256, two seeds) is in docs/attention.md.');
    } else lines.push(`The training comparison needs a text: ${why}`);
    return {
      lines,
      data: { layer_defects: defects, study: rows ? { settings: STUDY, rows } : { skipped: why } },
      summary: [
        ['attention kernel = end over the position group', 'attention(d,heads,rope|relative|none) — src/nn/attention.ts'],
        ['RoPE from SO(2): ρ(m) = ⊕ R(mω_i)', 'rotaryTable — src/symmetry/group/rotary.ts; Backend.rotatePairs'],
        ['κ(k − q) from translations', 'relativeBias — src/nn/attention-position.ts'],
      ],
    };
  },
};
