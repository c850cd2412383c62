import { xor } from '../../data/generated.js';
import { Rng } from '../../random/rng.js';
import { mse } from '../../nn/loss.js';
import { makeCtx } from '../../para/para.js';
import { parseSpec } from '../../catalogue/index.js';
import { stringDiagram } from '../../draw/diagram.js';
import { Tensor } from '../../tensor/tensor.js';
import { parsePoset } from '../../category/finite.js';
import { networkGraphOfModel, parseEdges } from '../../topos/network/graph.js';
import { layerInformation } from '../../topos/network/information.js';
import { globalSections } from '../../topos/presheaf/presheaf.js';
import { modelActivityPresheaf } from '../../topos/network/activities.js';
import { backpropComponent, networkActivities, weightPresheaf } from '../../topos/network/weights.js';
import { showSieve, sieveNegate, subobjectClassifier } from '../../topos/presheaf/sieve.js';
import { networkSite } from '../../topos/network/site.js';
import { siteReport } from '../../topos/network/site-report.js';
import { circularConv, denseMap, globalAveragePool, randomVectors, shiftDefect, subsample2 } from '../../topos/network/stack-equivariance.js';
import { cyclicGroup, groupAction, groupPresheaf } from '../../topos/network/stack.js';
import { omegaHasse, sitePicture, stackPicture } from '../../topos/network/site-picture.js';
import { fmt } from '../progress.js';
import { trainedXor, XOR_SPEC } from './para.js';
import type { TourSection } from './section.js';

/** Largest |a − b| over two lists of tensors. */
function maxDiff(a: readonly Tensor[], b: readonly Tensor[]): number {
  let m = 0;
  a.forEach((t, i) =>
    t.data.forEach((v, k) => {
      m = Math.max(m, Math.abs(v - b[i]!.data[k]!));
    }),
  );
  return m;
}

/** ℤ/2 swapping the two units of each layer of the chain y → x, acting on bit patterns; the restriction is bitwise NOT (equivariant: NOT commutes with the swap). */
function bitPatternStack() {
  const C = parsePoset('y<x');
  const Z2 = cyclicGroup(2);
  const F = groupPresheaf(
    C,
    [Z2, Z2],
    C.arrows.map(() => [0, 1]),
  );
  const patterns = ['00', '01', '10', '11'];
  const swap = [0, 2, 1, 3];
  const A = groupAction(
    F,
    [patterns, patterns],
    [
      [[0, 1, 2, 3], swap],
      [[0, 1, 2, 3], swap],
    ],
    C.arrows.map((a) => (a.dom === a.cod ? [0, 1, 2, 3] : [3, 2, 1, 0])),
  );
  return { F, A };
}
export const section: TourSection = {
  id: 'topos-network',
  title: 'Topos II: the topos and stacks of a network',
  async run({ seed }) {
    const lines: string[] = [];
    // 1. the site of the XOR network and of a small fork
    const model = parseSpec(XOR_SPEC);
    const xorSite = networkSite(networkGraphOfModel(model));
    const xorReport = siteReport(xorSite);
    lines.push(
      `site of ${XOR_SPEC}: ${xorReport.objects.length} objects, ${xorReport.arrows.length} arrows (against the flow), no forks, ${xorReport.globalTruthValues} global truth values`,
    );
    const fork = siteReport(networkSite(parseEdges('x1>h, x2>h, h>y')));
    lines.push(
      `site of x1>h, x2>h, h>y: fork at h (${fork.forks[0]!.tines.join(', ')}; ${fork.forks[0]!.tang}; ${fork.forks[0]!.handle}); J covers A★(h) by its tines; ${fork.globalTruthValues} global truth values`,
    );
    const res = networkSite(networkGraphOfModel(parseSpec('dense(2,4) >> residual(dense(4,4) >> relu) >> dense(4,1)')));
    lines.push(`a residual block breaks the paper's poset claim: thin = ${res.thin}, parallel arrows ${res.parallelArrows![0]} and ${res.parallelArrows![1]}`);
    // 2. Ω of the Sierpiński topos
    const S = parsePoset('0<1');
    const omega = subobjectClassifier(S);
    const m = omega.sieves[1]![1]!;
    lines.push(
      `Sierpiński 0<1: ${omega.sieves[0]!.length} sieves on 0, ${omega.sieves[1]!.length} on 1; m = ${showSieve(S, m)} has ¬m = ${showSieve(S, sieveNegate(S, m))}, ¬¬m = ${showSieve(S, sieveNegate(S, sieveNegate(S, m)))}: not Boolean`,
    );
    // 3. the network as presheaves, backprop as a natural transformation W ⇒ W
    const theta0 = model.init(seed, 'float64');
    const X = modelActivityPresheaf(xorSite, theta0, xor().x, 0.05);
    const sections = globalSections(X.presheaf).length;
    const W = weightPresheaf(xorSite);
    const acts = networkActivities(W, theta0, xor().x);
    let naturality = 0;
    xorSite.category.arrows.forEach((a, f) => {
      const w = W.at(a.cod, theta0);
      const left = W.restrict(f, backpropComponent(W, a.cod, w, acts, xor().y, mse, 0.5));
      const right = backpropComponent(W, a.dom, W.restrict(f, w), acts, xor().y, mse, 0.5);
      naturality = Math.max(naturality, maxDiff([...left.values()].flat(), [...right.values()].flat()));
    });
    const lens = model.forward(theta0, xor().x.to('float64'), makeCtx());
    const grads = theta0.map((t) => Tensor.zeros(t.shape, 'float64'));
    lens.pullback(mse.apply(lens.y, xor().y.to('float64')).pullback(), grads, false);
    const sgd = theta0.map((t, i) =>
      Tensor.of(
        Array.from(t.data, (v, a) => v - 0.5 * grads[i]!.data[a]!),
        t.shape,
        'float64',
      ),
    );
    const stepDiff = maxDiff([...backpropComponent(W, 0, W.at(0, theta0), acts, xor().y, mse, 0.5).values()].flat(), sgd);
    lines.push(
      `activity presheaf X^w (activations rounded to 0.05): ${sections} global sections for 4 inputs; backprop W ⇒ W: naturality defect over all ${xorSite.category.arrows.length} arrows (identities included) ${fmt(naturality)}, distance to one SGD step ${fmt(stepDiff)}`,
    );
    // 4. stacks: equivariance defects under cyclic shifts
    const xs = randomVectors(new Rng(seed), 8, 8);
    const conv = circularConv([0.5, -1, 2]);
    const dense = denseMap(randomVectors(new Rng(seed + 1), 8, 8));
    const defects = {
      circularConv: Math.max(...[1, 2, 3].map((s) => shiftDefect(conv, s, (t) => t, xs))),
      dense: shiftDefect(dense, 1, (t) => t, xs),
      globalAveragePool: Math.max(...[1, 2, 3].map((s) => shiftDefect(globalAveragePool, s, undefined, xs))),
      subsampleEven: shiftDefect(subsample2, 2, (t) => t / 2, xs),
      subsampleOdd: Math.min(...[0, 1, 2, 3].map((t) => shiftDefect(subsample2, 1, () => t, xs))),
    };
    lines.push(
      `equivariance defects under cyclic shifts: circular conv ${fmt(defects.circularConv)}, dense ${fmt(defects.dense, 3)}, global average pool ${fmt(defects.globalAveragePool)} (invariant), stride-2 subsampling ${fmt(defects.subsampleEven)} for even shifts, ≥ ${fmt(defects.subsampleOdd, 3)} for odd`,
    );
    // 5. semantic information of the trained XOR network's hidden layer
    const r = trainedXor(seed);
    const info = layerInformation(model, r.theta, xor().x, { bins: 2 });
    const hidden = info[0]!;
    const i2 = hidden.ik.find((s) => s.k === 2)!;
    lines.push(
      `trained XOR (accuracy ${fmt(r.accuracy, 3)}), hidden layer ${hidden.vertex} binarised: H(units) = ${hidden.unitEntropies.map((h) => fmt(h, 3)).join(', ')} bits, H(layer) = ${fmt(hidden.jointEntropy, 3)}, I_2 ∈ [${fmt(i2.min, 3)}, ${fmt(i2.max, 3)}], cocycle defect ${fmt(hidden.maxCocycleDefect)}`,
    );
    const forkSite = networkSite(parseEdges('x1>h, x2>h, h>y'));
    const bitStack = bitPatternStack();
    const tank = forkSite.forks[0]!.tank;
    const figures = [
      {
        caption:
          'The site C of the network x1>h, x2>h, h>y (Belfiore–Bennequin §1.3). What to see: h has two inputs, so it gets a fork — the object A★(h), which the tines from x1 and x2 enter, and A(h), reached by the tang from A★(h) and the handle from h. The arrows of C run against the flow of data (y → h).',
        svg: sitePicture(forkSite, 'the site of x1>h, x2>h, h>y'),
      },
      {
        caption: `Ω(A(h)): the ${fork.sievesPerObject['A(h)']} sieves on A(h) in that site, ordered by inclusion (an edge where nothing lies between), each written by the objects that generate it. What to see: a lattice that is not a Boolean algebra — the red sieves S have ¬¬S ≠ S, so the internal logic is intuitionistic.`,
        svg: omegaHasse(forkSite.category, tank),
      },
      {
        caption:
          'A stack over the chain y → x (arrows against the flow): in each fibre ℤ/2 swaps the two units of a layer, acting on the four bit patterns; the restriction from x to y is bitwise NOT, which commutes with the swap. What to see: the fibres are the action groupoids S(U)//F(U) — 00 and 11 are fixed, 01 and 10 swapped — and the dashed restrictions carry each orbit onto an orbit (equivariance).',
        svg: stackPicture(bitStack.F, bitStack.A),
      },
      {
        caption:
          'The residual network whose site is not thin. What to see: the skip wire and the body both reach the add vertex — a fork whose two inputs are joined by a path, so C has two parallel arrows.',
        svg: stringDiagram(parseSpec('dense(2,4) >> residual(dense(4,4) >> relu) >> dense(4,1)')),
      },
    ];
    return {
      lines,
      figures,
      data: {
        xorSite: { objects: xorReport.objects.length, arrows: xorReport.arrows.length, globalTruthValues: xorReport.globalTruthValues },
        forkSite: { globalTruthValues: fork.globalTruthValues, forks: fork.forks },
        residualThin: res.thin,
        sierpinski: { sieves: omega.sieves.map((s) => s.length) },
        activitySections: sections,
        backpropNaturalityDefect: naturality,
        backpropVsSgd: stepDiff,
        defects,
        xorInformation: info.map((l) => ({
          vertex: l.vertex,
          unitEntropies: l.unitEntropies,
          jointEntropy: l.jointEntropy,
          ik: l.ik,
          maxCocycleDefect: l.maxCocycleDefect,
        })),
      },
      summary: [
        ['site of a network (forks, J, C_X)', 'networkSite, networkGraphOfModel, parseEdges'],
        ['sieves and Ω', 'sieves, subobjectClassifier, globalTruthValues'],
        ['Heyting / co-Heyting algebra of subobjects', 'Subpresheaf.meet/join/implies/negate/difference/non'],
        ['quantifiers ∃_α ⊣ α* ⊣ ∀_α', 'existsAlong, pullbackAlong, forallAlong'],
        ['Grothendieck topologies, sheaves', 'grothendieckTopology, allTopologies, isSheaf'],
        ['activity and weight presheaves, backprop W ⇒ W', 'modelActivityPresheaf, weightPresheaf, backpropComponent'],
        ['stacks ∫F, Ω_F, equivariance', 'grothendieckConstruction, stackClassifier, shiftDefect'],
        ['semantic information, information cohomology', 'semanticPhi, semanticMutualInformation, shannonEntropy, conditionalAction, mutualInformationK'],
      ],
    };
  },
};
