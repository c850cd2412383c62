import { parsePoset } from '../../category/finite.js';
import { parseGroup } from '../../symmetry/group/parse-group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { glue } from '../../topos/gluing/glue.js';
import { conjugacyClasses, coinvariants, endOverGroup, homCoend } from '../../ends/report.js';
import { glueConvolution } from '../../ends/gluing.js';
import { sectionsCoend } from '../../ends/sections-coend.js';
import { Rng } from '../../random/rng.js';
import { linePlot } from '../../draw/plot.js';
import { fmt, table } from '../progress.js';
import type { TourSection } from './section.js';

/**
 * Ends and coends (seed 001, "Universality"): the end over a group is the space of equivariant
 * maps, the coend of Hom counts conjugacy classes, coinvariants match characters, and
 * overlap-add of locally convolved patches is a coend that equals the global convolution.
 */
export const section: TourSection = {
  id: 'ends',
  title: 'Ends and coends: global invariants and gluing',
  async run({ seed }) {
    const lines: string[] = [];
    const ends = (
      [
        ['S(3)', 'V', 'V'],
        ['S(4)', 'T(2)', 'V'],
        ['D(4)', 'V', 'V'],
        ['Z(5)', 'V', 'V'],
      ] as const
    ).map(([g, a, b]) => endOverGroup(parseGroup(g), parseRep(a), parseRep(b)));
    lines.push('Ends ∫_g Hom(ρ_in(g), ρ_out(g)) over a finite group as a one-object category (every element an arrow):');
    lines.push(
      table(
        ['group', '|G|', 'Hom(in, out)', 'end dim', 'solver dim', 'max residual', '|centre|'],
        ends.map((e) => [e.group, e.order, `${e.in} → ${e.out}`, e.dim, e.solverDim, fmt(e.residual, 2), e.centre.length]),
      ),
    );
    const coends = [...['S(3)', 'S(4)', 'D(5)', 'Z(6)'].map((g) => conjugacyClasses(parseGroup(g))), homCoend(parsePoset('a<b, a<c'), 'poset a<b, a<c')];
    lines.push('');
    lines.push('Coends ∫^c Hom(c, c) (endomorphisms modulo h∘f ~ f∘h): conjugacy classes of a group, one class per poset element:');
    lines.push(
      table(
        ['over', 'endomorphisms', 'classes', 'class sizes'],
        coends.map((q) => [q.category, q.size, q.classes.length, q.classes.map((c) => c.length).join(' ')]),
      ),
    );
    const coinv = (
      [
        ['S(3)', 'V', 'V'],
        ['S(4)', 'T(2)', 'V'],
        ['D(4)', 'V', 'T(0)'],
      ] as const
    ).map(([g, a, b]) => coinvariants(parseGroup(g), parseRep(a), parseRep(b)));
    lines.push('');
    lines.push('Coinvariants ρ ⊗_G σ = ∫^{BG} ρ* ⊗ σ (a quotient) against characters (1/|G|) Σ χ_ρ χ_σ:');
    lines.push(
      table(
        ['group', 'ρ ⊗ σ', 'before', 'coend dim', 'characters'],
        coinv.map((c) => [c.group, `${c.in} ⊗ ${c.out}`, c.size, c.dim, fmt(c.characterInnerProduct, 6)]),
      ),
    );

    const rng = new Rng(seed);
    const n = 64;
    const signal = Array.from({ length: n }, (_, i) => Math.sin(i / 5) + 0.3 * rng.normal());
    const kernel = [0.1, 0.2, 0.4, 0.2, 0.1];
    const g1 = glueConvolution(signal, 1, n, kernel, 1, 5, { ph: 1, pw: 16, hh: 1, hw: 12 });
    const image = Array.from({ length: 24 * 24 }, () => rng.uniform());
    const sobel = [1, 0, -1, 2, 0, -2, 1, 0, -1];
    const g2 = glueConvolution(image, 24, 24, sobel, 3, 3, { ph: 10, pw: 10, hh: 7, hw: 7 });
    lines.push('');
    lines.push('Gluing as a coend: overlapping patches convolved locally, glued by the coend of the cover category (overlap-add):');
    lines.push(
      table(
        ['input', 'patches', 'overlaps', '⊔ points', 'coend classes', 'global points', 'max |glued − global|'],
        (
          [
            ['1-D signal, 64 samples, 5-tap kernel', g1],
            ['24×24 image, 3×3 Sobel', g2],
          ] satisfies [string, typeof g1][]
        ).map(([name, r]) => [name, r.patches, r.overlaps, r.elements, r.classes, r.points, fmt(r.maxError, 2)]),
      ),
    );
    const agree = [
      { name: 'A', context: ['x1', 'x2'], prediction: [0.8] },
      { name: 'B', context: ['x2', 'x3'], prediction: [0.8] },
      { name: 'C', context: ['x3', 'x4'], prediction: [0.8] },
    ];
    const clash = [...agree.slice(0, 2), { name: 'C', context: ['x3', 'x4'], prediction: [0.3] }];
    const sheaf = [agree, clash].map((s) => ({ coend: sectionsCoend(s, 0), glue: glue(s, 0).glued }));
    lines.push('');
    lines.push('Sheaf gluing: sections glued where they agree have one coend class per global point exactly when Topos I glue() succeeds:');
    lines.push(
      table(
        ['sections', 'global points', 'coend classes', 'one per point', 'glue()'],
        sheaf.map((s, i) => [
          i ? 'A, B agree; C disagrees on x3' : 'A, B, C agree',
          s.coend.points.length,
          s.coend.classes.length,
          String(s.coend.onePerPoint),
          s.glue ? 'glued' : 'conflict',
        ]),
      ),
    );

    const figures = [
      {
        caption:
          'Gluing as a coend: a 1-D signal cut into overlapping patches, each convolved locally (thick grey); the coend (overlap-add) of the local outputs (dashed red) equals the global convolution (blue). What to see: the dashed line lies exactly on the blue one, including where patches overlap.',
        svg: linePlot(
          [
            ...g1.outputPatches.map((R, i) => ({
              name: 'local conv on each patch Vᵢ',
              colour: '#9a9a9a',
              width: 5,
              values: Array.from(g1.localOutputs[i]!),
              x: Array.from({ length: R.c1 - R.c0 }, (_, j) => R.c0 + j),
            })),
            { name: 'global convolution', colour: '#1f77b4', width: 3, values: Array.from(g1.global), x: Array.from({ length: n }, (_, j) => j) },
            { name: 'glued (overlap-add)', colour: '#d62728', dash: '5 4', values: Array.from(g1.glued), x: Array.from({ length: n }, (_, j) => j) },
          ],
          { title: 'overlap-add = coend', xlabel: 'position', ylabel: 'output', markers: false },
        ),
      },
    ];
    return {
      lines,
      figures,
      data: {
        ends: ends.map((e) => ({
          group: e.group,
          order: e.order,
          in: e.in,
          out: e.out,
          dim: e.dim,
          solver_dim: e.solverDim,
          max_residual: e.residual,
          centre: e.centre,
        })),
        coends: coends.map((q) => ({ over: q.category, endomorphisms: q.size, classes: q.classes.length })),
        coinvariants: coinv.map((c) => ({ group: c.group, in: c.in, out: c.out, dim: c.dim, characters: c.characterInnerProduct })),
        gluing: [g1, g2].map((g) => ({ patches: g.patches, overlaps: g.overlaps, classes: g.classes, points: g.points, max_error: g.maxError })),
        sheaf: sheaf.map((s) => ({ classes: s.coend.classes.length, points: s.coend.points.length, one_per_point: s.coend.onePerPoint, glued: s.glue })),
      },
      summary: [
        ['end ∫_c F(c, c) = equaliser (wedges)', 'setEnd, vectEnd — src/category'],
        ['equivariant maps = end of Hom(ρ(−), σ(−)) over BG', 'homRepFunctor + vectEnd, endOverGroup'],
        ['coend ∫^c F(c, c) = coequaliser (x·f ~ f·x)', 'setCoend (union–find), vectCoend'],
        ['conjugacy classes / coinvariants = coends over BG', 'conjugacyClasses, coinvariants'],
        ['gluing patches = coend over the cover category', 'glueConvolution, sectionsCoend'],
      ],
    };
  },
};
