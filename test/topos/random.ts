import fc from 'fast-check';
import { categoryFromPoset } from '../../src/category/index.js';
import type { FiniteCategory } from '../../src/category/index.js';
import { presheaf } from '../../src/topos/index.js';
import type { Presheaf } from '../../src/topos/index.js';

/** A random poset on 1..maxN elements (i ≤ j only when i ≤ j as numbers), transitively closed. */
export const arbPoset = (maxN = 4): fc.Arbitrary<FiniteCategory> =>
  fc.integer({ min: 1, max: maxN }).chain((n) =>
    fc.array(fc.boolean(), { minLength: n * n, maxLength: n * n }).map((bits) => {
      const le = (a: number, b: number): boolean => a === b || (a < b && bits[a * n + b]!);
      const c = Array.from({ length: n }, (_, a) => Array.from({ length: n }, (__, b) => le(a, b)));
      for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (c[a]![k] && c[k]![b]) c[a]![b] = true;
      return categoryFromPoset(
        Array.from({ length: n }, (_, i) => `p${i}`),
        (a, b) => c[a]![b]!,
      );
    }),
  );

/**
 * A random presheaf on a poset: a set U of "histories" and at every object a partition of U
 * finer than the partitions at the objects below (so restriction P(b) → P(a) is well defined),
 * plus a random number of extra elements at each object that exist only from there downwards.
 */
export const arbPresheaf = (C: FiniteCategory): fc.Arbitrary<Presheaf> => {
  const n = C.objects.length;
  return fc
    .record({
      u: fc.integer({ min: 1, max: 3 }),
      labels: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3 * n, maxLength: 3 * n }),
      extra: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    })
    .map(({ u, labels, extra }) => {
      // partition of U at object c: block of history h = canonical label of the tuple of labels at all b ≥ c
      const below = (c: number): number[] => C.objects.map((_, d) => d).filter((d) => C.hom(d, c).length > 0);
      const block = (c: number, h: number): string =>
        below(c)
          .map((b) => labels[(b * 3 + h) % labels.length]! % 2)
          .join('');
      const elements: string[][] = [];
      const idx: Map<string, number>[] = [];
      for (let c = 0; c < n; c++) {
        const m = new Map<string, number>();
        for (let h = 0; h < u; h++) if (!m.has(block(c, h))) m.set(block(c, h), m.size);
        idx.push(m);
        elements.push([...m.keys()].map((k) => `${C.objects[c]}:${k}`));
        if (extra[c]) elements[c]!.push(`${C.objects[c]}:new`);
      }
      const maps = C.arrows.map((a) => {
        const out: number[] = [];
        for (const key of idx[a.cod]!.keys()) {
          // any history h in this block restricts to its block at dom
          let h = 0;
          while (block(a.cod, h) !== key) h++;
          out.push(idx[a.dom]!.get(block(a.dom, h))!);
        }
        // the extra element at cod restricts to itself at cod and to history 0 below
        if (extra[a.cod]) out.push(a.dom === a.cod ? elements[a.cod]!.length - 1 : idx[a.dom]!.get(block(a.dom, 0))!);
        return out;
      });
      return presheaf(C, elements, maps);
    });
};

/** A random poset with a random presheaf on it. */
export const arbPosetPresheaf = (maxN = 4): fc.Arbitrary<Presheaf> => arbPoset(maxN).chain(arbPresheaf);
