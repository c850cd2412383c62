import { it } from 'vitest';
import { parseGroup } from '../../src/equivariant/parse-group.js';
import { parseRep } from '../../src/equivariant/parse-rep.js';
import { equivariantBasis } from '../../src/equivariant/solver.js';
import * as K from '../../src/category/index.js';
const t = (label: string, f: () => unknown) => { const t0 = performance.now(); f(); console.log(label, (performance.now() - t0).toFixed(0), 'ms'); };
it('smoke', () => {
  for (const g of ['S(4)', 'S(5)']) {
    let G!: K.GroupCategory;
    t(g + ' enumerate', () => (G = K.groupCategory(parseGroup(g))));
    t(g + ' hom check', () => K.homFunctor(G.category));
    const a = 'T(2)', b = 'V';
    let F!: K.VectDifunctor;
    t(g + ' build', () => (F = K.homRepFunctor(G, K.representation(G, parseRep(a)), K.representation(G, parseRep(b)), { check: false })));
    if (g === 'S(4)') t(g + ' check', () => K.checkVectDifunctor(F));
    t(g + ' end', () => K.vectEnd(F));
    t(g + ' solver', () => equivariantBasis(parseGroup(g), parseRep(a), parseRep(b)));
    t(g + ' coinv', () => K.vectCoend(K.tensorRepFunctor(G, K.representation(G, parseRep(a)), K.representation(G, parseRep(b)), { check: false })));
  }
  t('glue2d', () => K.glueConvolution(Array.from({ length: 20 * 24 }, (_, i) => Math.cos(i * 0.37)), 20, 24, [1, 2, 1, 0, 0, 0, -1, -2, -1], 3, 3, { ph: 8, pw: 8, hh: 6, hw: 6 }));
});
