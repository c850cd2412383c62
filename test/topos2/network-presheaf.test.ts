import { describe, expect, it } from 'vitest';
import '../../src/index.js';
import { xor } from '../../src/data/generated.js';
import { mse } from '../../src/nn/loss.js';
import { makeCtx } from '../../src/para/para.js';
import { parseSpec } from '../../src/para/spec.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { activityPresheaf, backpropComponent, chainActivities, checkFunctorial, crossedRestrict, globalSections, isSheaf, modelActivityPresheaf, networkGraphOfModel, networkSite, parseEdges, weightPresheaf } from '../../src/topos/topos2.js';

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
      const b = [[0, 0], [0, 1], [1, 0], [1, 1]].findIndex((r) => r[0] === input[0] && r[1] === input[1]);
      expect(X.values[6]![s[6]!]![0]).toBeCloseTo(out.data[b]!, 1);
    }
  });

  it('on a fork, X(A★) is the product of the inputs and X is a sheaf for the tine topology', () => {
    const site = networkSite(parseEdges('x1>h, x2>h, h>y'));
    const sources = new Map([['x1', [[0], [1]]], ['x2', [[0], [1], [2]]]]);
    const layer = (v: number, ins: readonly (readonly number[])[]): number[] => (site.graph.vertices[v] === 'h' ? [ins[0]![0]! + ins[1]![0]!] : [2 * ins[0]![0]!]);
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
    const layer = (v: number, ins: readonly (readonly number[])[]): number[] => (site.graph.vertices[v] === 'y' ? [ins[0]![0]! * 3] : [ins[0]![0]! - ins[1]![0]!]);
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
    const outs = globalSections(X.presheaf).map((s) => X.values[last]![s[last]!]![0]!).sort((a, b) => a - b);
    const expected = Array.from(out.data).sort((a, b) => a - b);
    outs.forEach((o, i) => expect(Math.abs(o - expected[i]!)).toBeLessThan(0.05));
  });
});

describe('weights, the crossed object and backprop as a natural transformation W ⇒ W', () => {
  const model = parseSpec(XOR);
  const site = networkSite(networkGraphOfModel(model));
  const W = weightPresheaf(site);
  const theta = model.init(7, 'float64');
  const { x, y } = xor();
  const acts = chainActivities(W, theta, x);
  const lr = 0.5;

  it('W(k) holds the weights downstream of k; restriction forgets layers k+1 … j and composes', () => {
    expect(W.at(0, theta).length).toBe(6);
    expect(W.at(1, theta).length).toBe(4); // after dense(2,4): dense(4,4), dense(4,1)
    expect(W.at(6, theta).length).toBe(0);
    expect(W.restrict(0, 3, W.at(0, theta))).toEqual(W.at(3, theta));
    expect(W.restrict(2, 5, W.restrict(0, 2, W.at(0, theta)))).toEqual(W.restrict(0, 5, W.at(0, theta)));
  });

  it('the naturality square commutes exactly: restrict(β_k(w)) = β_j(restrict(w)) for all j ≥ k', () => {
    for (let k = 0; k <= 6; k++) {
      const w = W.at(k, theta);
      const bk = backpropComponent(W, k, w, acts, y, mse, lr);
      for (let j = k; j <= 6; j++) {
        const left = W.restrict(k, j, bk);
        const right = backpropComponent(W, j, W.restrict(k, j, w), acts, y, mse, lr);
        left.forEach((t, i) => expect(Array.from(t.data)).toEqual(Array.from(right[i]!.data)));
      }
    }
  });

  it('the component at the input is one ordinary gradient step of the whole network', () => {
    const stepped = backpropComponent(W, 0, W.at(0, theta), acts, y, mse, lr);
    const ctx = makeCtx();
    const lens = model.forward(theta, x.to('float64'), ctx);
    const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
    lens.pullback(mse.apply(lens.y, y.to('float64')).pullback(), dTheta, false);
    theta.forEach((t, i) => {
      const expected = Array.from(t.data, (v, a) => v - lr * dTheta[i]!.data[a]!);
      expect(Array.from(stepped[i]!.data)).toEqual(expected);
      expect(dTheta[i]!.data.some((g) => g !== 0)).toBe(true);
    });
  });

  it('the crossed object: restriction runs the layers with the carried weights, composes, and projects to W', () => {
    const a0 = x.to('float64');
    const all = crossedRestrict(W, 0, 6, a0, W.at(0, theta));
    expect(Array.from(all.a.data)).toEqual(Array.from(model.run(theta, a0).data));
    const mid = crossedRestrict(W, 0, 3, a0, W.at(0, theta));
    const two = crossedRestrict(W, 3, 6, mid.a, mid.w);
    expect(Array.from(two.a.data)).toEqual(Array.from(all.a.data));
    expect(all.w).toEqual(W.restrict(0, 6, W.at(0, theta)));
  });

  it('W is only built for chains', () => {
    expect(() => weightPresheaf(networkSite(networkGraphOfModel(parseSpec('dense(2,2) >> residual(dense(2,2)) >> dense(2,1)'))))).toThrow(/chains/);
  });
});
