import { reparameterisationDemo } from '../../experiments/equivariant/fibration.js';
import { inertiaExperiment } from '../../experiments/equivariant/inertia.js';
import { parseGroup } from '../../symmetry/group/parse-group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { applyRope, ropeFrequencies } from '../../nn/equivariant/rope.js';
import { basisMatrix, equivarianceError, equivariantBasis } from '../../symmetry/solve/solver.js';
import type { EquivariantBasis } from '../../symmetry/solve/solver.js';
import { linePlot, matrixGallery } from '../../draw/plot.js';
import { matrixLines } from '../commands/derive.js';
import { fmt, table } from '../progress.js';
import type { TourSection } from './section.js';
import { clebschGordan } from '../../symmetry/irreps/clebsch-gordan.js';
import { decompose, decomposeSymmetric, decompositionString } from '../../symmetry/irreps/decompose.js';
import { parseIndexSymmetry } from '../../symmetry/irreps/index-symmetry.js';
import { sphericalHarmonics } from '../../symmetry/irreps/spherical-harmonics.js';
import { wignerD } from '../../symmetry/irreps/wigner.js';
import { Rng } from '../../random/rng.js';

const derive = (g: string, i: string, o: string): EquivariantBasis => equivariantBasis(parseGroup(g), parseRep(i), parseRep(o));
const row = (b: EquivariantBasis, what: string): (string | number)[] => [
  b.group,
  `${b.in} → ${b.out}`,
  b.dim,
  fmt(equivarianceError(b), 2),
  fmt(b.seconds * 1000, 3),
  what,
];

export const section: TourSection = {
  id: 'equivariant',
  title: 'Ends over symmetry groups: derived equivariant kernels',
  async run({ seed }) {
    const lines: string[] = [];
    const conv = derive('Trans(6)', 'V', 'V');
    const sets = derive('S(5)', 'V', 'V');
    const so2 = derive('SO(2)', 'V', 'V');
    const so2k = derive('SO(2)', 'T(2)', 'T(2)');
    const cross = derive('SO(3)', 'T(2)', 'V');
    const crossO3 = derive('O(3)', 'T(2)', 'V');
    const leg = derive('SO(3)', 'T(4)', 'T(0)');
    const lorentz = derive('O(1,3)', 'T(2)', 'T(0)');
    lines.push("The end Hom_G(ρ_in, ρ_out) = {W : ρ_out(g)W = Wρ_in(g) ∀g}, solved from the group's generators:");
    lines.push(
      table(
        ['group', 'map', 'dim', 'equiv. error', 'ms', 'what it is'],
        [
          row(conv, 'convolution: one weight per offset κ(k − q)'),
          row(sets, 'DeepSets: span{I, 11ᵀ}'),
          row(so2, 'span{I, J}: rotation-scalings (RoPE blocks)'),
          row(so2k, 'kernels of circular-harmonic orders 0 and 2'),
          row(cross, 'the cross product ε_kij'),
          row(crossO3, 'no cross product: it flips under reflections'),
          row(leg, 'invariants of x⊗x⊗y⊗y: 1 and (x·y)² = P₀, P₂'),
          row(lorentz, 'the Minkowski metric η'),
        ],
      ),
    );
    lines.push('');
    lines.push('Translations of a 6-point ring, basis element for offset 1 (weight tying = convolution):');
    const k1 = Array.from({ length: conv.dim }, (_, k) => basisMatrix(conv, k)).find((m) => m.data[1] !== 0)!;
    lines.push(...matrixLines(k1));
    lines.push('S(5) on V → V (DeepSets): the two orbit indicators');
    lines.push(...matrixLines(basisMatrix(sets, 0)), '', ...matrixLines(basisMatrix(sets, 1)));
    lines.push('SO(3): T(2) → V, the cross product (rows k, columns i·3 + j):');
    lines.push(...matrixLines(basisMatrix(cross, 0)));

    // irreducibles: decompositions, a Clebsch–Gordan map from the end solver, Wigner D against the harmonics
    const irreps = [
      ['SO(3)', 'T(2)', decompositionString(decompose('SO(3)', parseRep('T(2)')))],
      ['O(3)', 'T(2)', decompositionString(decompose('O(3)', parseRep('T(2)')))],
      ['O(3)', "T(4), 'ijkl=jikl=klij'", decompositionString(decomposeSymmetric('O(3)', parseIndexSymmetry('ijkl=jikl=klij')))],
    ];
    const c111 = clebschGordan(1, 1, 1);
    let offEps = 0,
      onEps = 0;
    c111.forEach((v, t) => {
      const [i, j, k] = [Math.floor(t / 9), Math.floor(t / 3) % 3, t % 3];
      if (i !== j && j !== k && i !== k) onEps = Math.max(onEps, Math.abs(v));
      else offEps = Math.max(offEps, Math.abs(v));
    });
    const R = parseGroup('SO(3)').sample(new Rng(seed)),
      x = [0.6, -0.8, 0.5];
    const Rx = [0, 1, 2].map((i) => R.data[3 * i]! * x[0]! + R.data[3 * i + 1]! * x[1]! + R.data[3 * i + 2]! * x[2]!);
    const y = sphericalHarmonics(3, x, 1),
      yR = sphericalHarmonics(3, Rx, 1),
      D3 = wignerD(3, R);
    let shDev = 0;
    for (let m = 0; m < 7; m++) shDev = Math.max(shDev, Math.abs(yR[9 + m]! - D3.data.slice(m * 7, m * 7 + 7).reduce((a, v, k) => a + v * y[9 + k]!, 0)));
    lines.push('');
    lines.push('Irreducible representations (e3nn notation; V is 1o for O(3)):');
    lines.push(table(['group', 'representation', 'decomposition'], irreps));
    lines.push(
      `Clebsch–Gordan 1 ⊗ 1 → 1 from the end Hom_SO(3)(1⊗1, 1): |C| = ${fmt(onEps, 4)} on ε's entries (1/√6 = ${fmt(1 / Math.sqrt(6), 4)}), ${fmt(offEps, 2)} elsewhere`,
    );
    lines.push(`Y₃(Rx) − D³(R)Y₃(x) for a random rotation: max ${fmt(shDev, 2)}`);

    // RoPE: relative position only
    const omega = ropeFrequencies(8);
    const q = [0.3, -1, 2, 0.5, 1, -0.2, 0.7, 0.1],
      k = [1, 0.4, -0.7, 2, 0.1, 0.9, -1, 0.3];
    const rot = (v: number[], m: number): Float64Array => {
      const x = Float64Array.from(v);
      applyRope(x, 1, 8, omega, m);
      return x;
    };
    const score = (m: number, n: number): number => rot(q, m).reduce((s, v, i) => s + v * rot(k, n)[i]!, 0);
    const ropeDev = Math.max(...[1, 10, 1000].map((s) => Math.abs(score(3 + s, 7 + s) - score(3, 7))));
    lines.push('');
    lines.push(`RoPE (interleaved pairs): ⟨R_{m+s}q, R_{n+s}k⟩ − ⟨R_m q, R_n k⟩ over s ∈ {1, 10, 1000}: max ${fmt(ropeDev, 2)}`);

    const demo = reparameterisationDemo(seed);
    lines.push('');
    lines.push('Fibration: one step in coordinates θ vs φ (θ = Mφ), max change of f on the data:');
    lines.push(`  natural gradient ${fmt(demo.linear.natural, 2)}, plain gradient descent ${fmt(demo.linear.gradientDescent, 3)}`);
    lines.push(`  nonlinear θ = φ + ½φ³, natural gradient, η → difference: ${demo.nonlinear.map((d) => `${d.eta} → ${fmt(d.natural, 3)}`).join(', ')} (∝ η²)`);

    const rows = inertiaExperiment({ sizes: [100], steps: 400, seed });
    lines.push('');
    lines.push('EMLP inertia task (O(3), 5T(0)+5V → T(2)), 100 training systems, 400 Adam steps:');
    lines.push(
      table(
        ['model', 'params', 'test MSE', 'equivariance error'],
        rows.map((r) => [r.model, r.parameters, fmt(r.testMSE), fmt(r.equivarianceError, 2)]),
      ),
    );
    const nested = (b: EquivariantBasis): number[][][] =>
      Array.from({ length: b.dim }, (_, k) => {
        const m = basisMatrix(b, k);
        return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
      });
    const conv8 = derive('Trans(8)', 'V', 'V');
    const figures = [
      {
        caption:
          "The end over translations of an 8-point ring (V → V): one basis element per offset. What to see: each element is a shifted diagonal — convolution's weight tying.",
        svg: matrixGallery(nested(conv8), { title: 'Trans(8): V → V', cell: 14, names: nested(conv8).map((_, k) => `offset ${k}`) }),
      },
      {
        caption:
          'The end over S(5) (V → V): two basis elements. What to see: the identity and the off-diagonal all-ones — the two weights of a DeepSets layer.',
        svg: matrixGallery(nested(sets), { title: 'S(5): V → V', cell: 22 }),
      },
      {
        caption:
          'The end over SO(2) on T(2) → T(2) (4×4 maps): 6 basis elements. What to see: antisymmetric and symmetric patterns, the circular-harmonic orders 0 and 2.',
        svg: matrixGallery(nested(so2k), { title: 'SO(2): T(2) → T(2)', cell: 22 }),
      },
      {
        caption:
          'The end over SO(3) on T(2) → V: one basis element, 3×9 (rows k, columns i·3 + j). What to see: the Levi-Civita symbol ε_kij — the cross product — with ±1 on the six permutations and white zeros elsewhere.',
        svg: matrixGallery(nested(cross), { title: 'SO(3): T(2) → V', cell: 26, names: ['ε_kij'] }),
      },
      {
        caption:
          'Natural gradient under θ = φ + ½φ³, log–log: how far one step in φ lands from the same step in θ, against the step size η. What to see: the natural-gradient line has slope 2 (the difference is O(η²)), plain gradient descent slope 1 (O(η)).',
        svg: linePlot(
          [
            { name: 'natural gradient', x: demo.nonlinear.map((d) => d.eta), values: demo.nonlinear.map((d) => d.natural) },
            { name: 'gradient descent', x: demo.nonlinear.map((d) => d.eta), values: demo.nonlinear.map((d) => d.gradientDescent) },
          ],
          { title: 'reparameterisation: difference vs step size', xlabel: 'step size η', ylabel: 'max |Δf| between coordinates', log: true, logx: true },
        ),
      },
    ];
    return {
      lines,
      figures,
      data: {
        derivations: [conv, sets, so2, so2k, cross, crossO3, leg, lorentz].map((b) => ({
          group: b.group,
          in: b.in,
          out: b.out,
          dim: b.dim,
          equivariance_error: equivarianceError(b),
          seconds: b.seconds,
        })),
        rope_max_deviation: ropeDev,
        irreps: irreps.map(([group, rep, decomposition]) => ({ group, rep, decomposition })),
        wigner_deviation: shDev,
        reparameterisation: demo,
        inertia: rows,
      },
      summary: [
        ['end ∫_g Hom(ρ_in g, ρ_out g)', 'equivariantBasis() — src/symmetry/solve/solver.ts'],
        ['convolution = end over translations', 'conv1dPeriodic / conv2dPeriodic'],
        ['DeepSets = end over S(n); message passing = its restriction to a graph', 'deepsetsLayer, messagePassing'],
        ['RoPE / SO(2) and SO(3) kernels', 'ropeAttention, equivariantBasis(SO(n), …)'],
        ['irreducibles: spherical harmonics, Wigner D, Clebsch–Gordan, decompositions', 'src/symmetry/irreps; derive --decompose'],
        ['cartesian (natural) update on the fibration', 'NaturalGradient, KFAC — src/optim/natural-gradient.ts'],
      ],
    };
  },
};
