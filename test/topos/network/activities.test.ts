import { describe, expect, it } from 'vitest';
import { xor } from '../../../src/data/generated.js';
import { mse } from '../../../src/nn/loss.js';
import { makeCtx } from '../../../src/para/para.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import {
  activityPresheaf,
  backpropComponent,
  checkFunctorial,
  crossedRestrict,
  globalSections,
  isSheaf,
  modelActivityPresheaf,
  networkActivities,
  networkGraphOfModel,
  networkSite,
  parseEdges,
  weightPresheaf,
} from '../../../src/topos/index.js';
import type { CrossedElement, Weights } from '../../../src/topos/index.js';
import type { Para } from '../../../src/para/para.js';

const XOR = 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid';

describe('the network as presheaves', () => {
  it('activity presheaf of the XOR network: functorial, one global section per input', () => {
    const model = parseSpec(XOR);
    const site = networkSite(networkGraphOfModel(model));
    const theta = model.init(3, 'float64');
    const X = modelActivityPresheaf(site, theta, xor().x, 0.05);
    checkFunctorial(X.presheaf);
    expect(X.presheaf.size(0)).toBe(4);
    const sections = globalSections(X.presheaf);
    expect(sections.length).toBe(4);
    // the section through input i carries the (discretised) forward pass
    const out = model.run(theta, xor().x.to('float64'));
    for (const s of sections) {
      const input = X.values[0]![s[0]!]!;
      const b = [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ].findIndex((r) => r[0] === input[0] && r[1] === input[1]);
      expect(X.values[6]![s[6]!]![0]).toBeCloseTo(out.data[b]!, 1);
    }
  });

  it('on a fork, X(A★) is the product of the inputs and X is a sheaf for the tine topology', () => {
    const site = networkSite(parseEdges('x1>h, x2>h, h>y'));
    const sources = new Map([
      ['x1', [[0], [1]]],
      ['x2', [[0], [1], [2]]],
    ]);
    const layer = (v: number, ins: readonly (readonly number[])[]): number[] =>
      site.graph.vertices[v] === 'h' ? [ins[0]![0]! + ins[1]![0]!] : [2 * ins[0]![0]!];
    const X = activityPresheaf(site, sources, layer, 1);
    const C = site.category;
    expect(X.presheaf.size(C.object('A★(h)'))).toBe(6);
    expect(X.presheaf.size(C.object('h'))).toBe(4); // sums 0..3
    expect(isSheaf(X.presheaf, site.topology)).toBe(true);
    // global sections: one per pair of inputs
    expect(globalSections(X.presheaf).length).toBe(6);
  });

  it('in the non-thin case (x > y, c reads y and x) the activity presheaf lives on the free category; sections = inputs', () => {
    const site = networkSite(parseEdges('x>y, y>c, x>c'));
    const layer = (v: number, ins: readonly (readonly number[])[]): number[] =>
      site.graph.vertices[v] === 'y' ? [ins[0]![0]! * 3] : [ins[0]![0]! - ins[1]![0]!];
    const X = activityPresheaf(site, new Map([['x', [[0], [1], [2]]]]), layer, 1);
    checkFunctorial(X.presheaf);
    // A★(c) holds all 9 pairs (y, x), but only the 3 consistent ones y = 3x extend to global sections
    expect(X.presheaf.size(site.category.object('A★(c)'))).toBe(9);
    expect(globalSections(X.presheaf).length).toBe(3);
  });

  it('a residual block: activity presheaf through copy and add', () => {
    const model = parseSpec('dense(2,2) >> residual(dense(2,2) >> relu) >> dense(2,1)');
    const site = networkSite(networkGraphOfModel(model));
    const theta = model.init(1, 'float64');
    const X = modelActivityPresheaf(site, theta, xor().x, 0.01);
    checkFunctorial(X.presheaf);
    expect(globalSections(X.presheaf).length).toBe(4);
    const out = model.run(theta, xor().x.to('float64'));
    const last = site.graph.vertices.length - 1;
    const outs = globalSections(X.presheaf)
      .map((s) => X.values[last]![s[last]!]![0]!)
      .sort((a, b) => a - b);
    const expected = Array.from(out.data).sort((a, b) => a - b);
    outs.forEach((o, i) => expect(Math.abs(o - expected[i]!)).toBeLessThan(0.05));
  });
});

/** Largest |a − b| over two weight maps with the same keys. */
function maxDiff(a: Weights, b: Weights): number {
  expect([...a.keys()]).toEqual([...b.keys()]);
  let m = 0;
  for (const [j, ts] of a) ts.forEach((t, k) => t.data.forEach((v, i) => (m = Math.max(m, Math.abs(v - b.get(j)![k]!.data[i]!)))));
  return m;
}

/** θ − lr·∇θ L computed by the model's own pullback (one ordinary gradient step). */
function sgdStep(model: Para, theta: Tensor[], x: Tensor, y: Tensor, lr: number): Tensor[] {
  const lens = model.forward(theta, x.to('float64'), makeCtx());
  const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
  lens.pullback(mse.apply(lens.y, y.to('float64')).pullback(), dTheta, false);
  expect(dTheta.some((g) => g.data.some((v) => v !== 0))).toBe(true);
  return theta.map((t, i) =>
    Tensor.of(
      Array.from(t.data, (v, a) => v - lr * dTheta[i]!.data[a]!),
      t.shape,
      'float64',
    ),
  );
}

describe('weights, the crossed object and backprop as a natural transformation W ⇒ W', () => {
  const { x, y } = xor();
  const lr = 0.5;
  const cases = [
    { name: 'XOR chain', spec: XOR, exact: true },
    { name: 'residual block (a fork, not thin)', spec: 'dense(2,3) >> tanh >> residual(dense(3,3) >> tanh) >> dense(3,1) >> sigmoid', exact: false },
  ];

  for (const { name, spec, exact } of cases) {
    const model = parseSpec(spec);
    const site = networkSite(networkGraphOfModel(model));
    const C = site.category;
    const W = weightPresheaf(site);
    const theta = model.init(7, 'float64');
    const acts = networkActivities(W, theta, x);

    it(`${name}: D grows along every arrow, W restricts by forgetting and is functorial`, () => {
      C.arrows.forEach((a, f) => {
        expect(W.downstream[a.dom]!.every((j) => W.downstream[a.cod]!.includes(j))).toBe(true);
        const w = W.at(a.cod, theta);
        expect([...W.restrict(f, w).keys()]).toEqual(W.downstream[a.dom]);
        for (const g of C.arrowsFrom(a.cod)) {
          const wg = W.at(C.arrows[g]!.cod, theta);
          expect(W.restrict(C.compose(g, f), wg)).toEqual(W.restrict(f, W.restrict(g, wg)));
        }
      });
      // the input holds every weight of the network
      expect(W.downstream[0]!.length).toBe(site.graph.vertices.length - 1);
    });

    it(`${name}: the naturality square commutes exactly for every arrow: restrict_f ∘ β_b = β_a ∘ restrict_f`, () => {
      C.arrows.forEach((a, f) => {
        const w = W.at(a.cod, theta);
        const left = W.restrict(f, backpropComponent(W, a.cod, w, acts, y, mse, lr));
        const right = backpropComponent(W, a.dom, W.restrict(f, w), acts, y, mse, lr);
        expect(maxDiff(left, right)).toBe(0);
      });
    });

    it(`${name}: the component at the input is one ordinary gradient step of the whole network`, () => {
      const stepped = backpropComponent(W, 0, W.at(0, theta), acts, y, mse, lr);
      const expected = sgdStep(model, theta, x, y, lr);
      const flat = [...stepped.values()].flat();
      expect(flat.length).toBe(expected.length);
      flat.forEach((t, i) => {
        if (exact) expect(Array.from(t.data)).toEqual(Array.from(expected[i]!.data));
        else t.data.forEach((v, k) => expect(Math.abs(v - expected[i]!.data[k]!)).toBeLessThan(1e-14));
      });
    });

    it(`${name}: the crossed object restricts functorially, projects to W, and runs the network`, () => {
      // the element of 𝕏 at each object given by the forward pass at θ
      const elementAt = (c: number): CrossedElement => {
        const fork = site.forks.find((k) => k.star === c || k.tank === c);
        const a = fork ? fork.inputs.map((u) => acts[site.graph.vertices.indexOf(u)]!) : [acts[c]!];
        return { a, w: W.at(c, theta) };
      };
      C.arrows.forEach((arr, f) => {
        const r = crossedRestrict(W, f, elementAt(arr.cod));
        expect(r.w).toEqual(W.restrict(f, W.at(arr.cod, theta)));
        // the forward pass is a global section of 𝕏: restriction lands on the forward pass
        const target = elementAt(arr.dom);
        r.a.forEach((t, i) => t.data.forEach((v, k) => expect(Math.abs(v - target.a[i]!.data[k]!)).toBeLessThan(1e-12)));
      });
      expect(Array.from(acts[acts.length - 1]!.data)).toEqual(Array.from(model.run(theta, x.to('float64')).data));
    });
  }
});
