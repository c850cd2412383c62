// The cost model behind the bounded-cost refusals (issue 23): estimates made from the expression
// alone, limits that hold, and refusals that name the estimate — unit by unit, in-process (the
// reproductions with memory caps are in bounded-cost.test.ts).
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { categoryFromPoset, MAX_POSET_ELEMENTS, parsePoset } from '../../src/category/finite.js';
import { readIdxFile } from '../../src/data/node.js';
import { clip, quote, TooLargeError, WorkMeter } from '../../src/errors.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { repMeasure, repToString } from '../../src/symmetry/group/rep.js';
import { equivariantBasis, estimateBasisBytes } from '../../src/symmetry/solve/solver.js';
import { seqOf } from '../../src/para/composite.js';
import { parseSpecWith, SPEC_LIMITS } from '../../src/catalogue/grammar.js';
import { id } from '../../src/para/structure.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { idxBytes } from '../data/idx-files.js';

describe('quote: raw input inside a one-line message', () => {
  it('escapes line breaks and control characters, keeps other text', () => {
    expect(quote('a\nb\r\tc\u0007')).toBe("'a\\nb\\r\\tc\\u0007'");
    expect(quote('x\u2028y\u0085')).toBe("'x\\u2028y\\u0085'");
    expect(quote('dense(2,4) ≥ ü')).toBe("'dense(2,4) ≥ ü'");
  });
  it('never splits a character outside the BMP, escapes lone surrogates, and truncates with an ellipsis', () => {
    expect(quote('😀😀😀', 2)).toBe("'😀😀…'");
    expect(quote('a\ud800b')).toBe("'a\\ud800b'");
    expect(quote('x'.repeat(100))).toBe(`'${'x'.repeat(80)}…'`);
  });
  it('property: the result is one line, and text without special characters is kept whole', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const q = quote(s, 1000);
        expect(q).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(clip(s, Infinity)).not.toMatch(/[\n\r\u2028\u2029]/);
        if (/^[\x20-\x7e]*$/.test(s)) expect(q).toBe(`'${s}'`);
      }),
    );
  });
});

describe('spec strings: length, nesting and the cost of their layers are bounded', () => {
  it('nesting deeper than the limit is a SpecError naming the column (no stack overflow)', () => {
    const deep = (k: number): string => `${'residual('.repeat(k)}dense(2,2)${')'.repeat(k)}`;
    expect(String(parseSpec(deep(10)))).toBe(deep(10));
    expect(() => parseSpec(deep(SPEC_LIMITS.depth + 1))).toThrow(/more than 64 levels of nesting at column/);
    expect(() => parseSpec(`${'('.repeat(100_000)}relu`)).toThrow(/levels of nesting/);
  });
  it('long specs parse in linear time: 100,000 layers', () => {
    const m = parseSpec(Array.from({ length: 100_000 }, () => 'id(2)').join(' >> '));
    expect(m.children).toHaveLength(100_000);
    // composition is one pass: seq of seqs is flattened without quadratic copying
    expect(seqOf(Array.from({ length: 200_000 }, () => id(2))).children).toHaveLength(200_000);
  });
  it('refuses text beyond the limit, parameters beyond the limit, and layers whose construction would not fit', () => {
    expect(() => parseSpec('relu >> '.repeat(2 ** 17) + 'relu')).toThrow(TooLargeError);
    expect(() => parseSpec(Array.from({ length: 20 }, () => 'dense(4096,4096)').join(' >> '))).toThrow(/parameters; at most/);
    expect(() => parseSpec('set_equivariant(100000,1,1)')).toThrow(/at most 4096/);
    expect(() => parseSpec('gated(Z(2),T(64))')).toThrow(TooLargeError);
    expect(() => parseSpec('bilinear(S(4000),V)')).toThrow(TooLargeError);
    expect(() => parseSpec('emlp(S(3),V,V,V,100000)')).toThrow(/depth must be an integer from 1 to 64/);
  });
  it('estimates sum over the spec and are checked before each layer is made', () => {
    let made = 0;
    const big = {
      name: 'big',
      args: [],
      doc: 'big: costs half the limit',
      cost: () => ({ bytes: SPEC_LIMITS.bytes / 2 }),
      make: () => (made++, id(2)),
    } as const;
    const lookup = { get: (n: string) => (n === 'big' ? big : undefined), names: () => ['big'] };
    expect(parseSpecWith(lookup, 'big >> big').children).toHaveLength(2);
    made = 0;
    expect(() => parseSpecWith(lookup, 'big >> big >> big')).toThrow(/building its layers up to big at column 15 needs about 1.5 GiB; the limit is 1.0 GiB/);
    expect(made).toBe(2);
  });
  it('a basis estimate is a real bound: S(40), T(2) → T(2)', () => {
    const estimate = estimateBasisBytes(parseGroup('S(40)'), parseRep('T(2)'), parseRep('T(2)'));
    expect(estimate).toBeGreaterThan(2 ** 27);
    expect(estimate).toBeLessThan(2 ** 28);
  });
});

describe('representation expressions are measured, not built', () => {
  it('sizes and atom counts of astronomically large spaces, from the expression', () => {
    expect(repMeasure(parseRep('T(64)'), 2)).toEqual({ size: 2 ** 64, atoms: 1 });
    expect(repMeasure(parseRep('64(64(64(64(V+T(0)))))'), 3)).toEqual({ size: 4 * 64 ** 4, atoms: 2 * 64 ** 4 });
  });
  it('prints shared multiplicities once: 64(64(64V)) is a short string that parses back to the same size', () => {
    const r = parseRep('64(64(64V))');
    expect(repToString(r)).toBe('64(64(64V))');
    expect(repMeasure(parseRep(repToString(r)), 3).size).toBe(3 * 64 ** 3);
    // runs beyond the grammar's multiplicity limit are split so the text parses back
    expect(repToString(parseRep('64V+64V'))).toBe('64V+64V');
    expect(() => parseRep(`${'('.repeat(40)}V${')'.repeat(40)}`)).toThrow(/at most 32 levels of nesting/);
  });
  it('a solve is refused from the sizes before any atom exists', () => {
    expect(() => equivariantBasis(parseGroup('Z(2)'), parseRep('T(64)'), parseRep('V'))).toThrow(/more than 2\^31/);
    expect(() => equivariantBasis(parseGroup('S(3)'), parseRep('T(0)+T(0)+T(0)+T(0)+T(0)+T(0)+T(0)+T(0)+T(0)+T(0)'), parseRep('64(64(64(V+T(0))))'))).toThrow(
      /blocks/,
    );
  });
  it('a product of matrix groups whose generators would not fit is refused before they are built', () => {
    expect(() => parseGroup('O(64)xO(64)xO(64)xO(64)')).toThrow(/generators as \d+×\d+ matrices need about/);
    expect(parseGroup('S(4096)').d).toBe(4096); // permutations only: no 4096×4096 matrices made
  });
});

describe('posets: the closure and the category, bounded', () => {
  it('parsePoset agrees with categoryFromPoset on random relations (property)', () => {
    const rel = fc.array(fc.tuple(fc.nat(7), fc.nat(7)), { maxLength: 12 });
    fc.assert(
      fc.property(rel, (pairs) => {
        const acyclic = pairs.filter(([a, b]) => a < b);
        if (!acyclic.length) return;
        const text = acyclic.map(([a, b]) => `e${a}<e${b}`).join(', ');
        const C = parsePoset(text);
        const n = C.objects.length;
        // the reference: closure by repeated squaring of the relation
        const le = (a: number, b: number): boolean => a === b || C.hom(a, b).length > 0;
        const D = categoryFromPoset(C.objects, le);
        expect(C.arrows.map((a) => a.name)).toEqual(D.arrows.map((a) => a.name));
        for (let f = 0; f < C.arrows.length; f++) for (const g of C.arrowsFrom(C.arrows[f]!.cod)) expect(C.compose(g, f)).toBe(D.compose(g, f));
        for (const [a, b] of acyclic) expect(C.hom(C.object(`e${a}`), C.object(`e${b}`))).toHaveLength(1);
        expect(n).toBeLessThanOrEqual(8);
      }),
    );
  });
  it('refuses too many elements or composable pairs with the estimate', () => {
    expect(() => parsePoset(Array.from({ length: MAX_POSET_ELEMENTS + 2 }, (_, i) => `p${i}`).join('<'))).toThrow(/more than 2000 elements/);
    expect(() => parsePoset(Array.from({ length: 700 }, (_, i) => `p${i}`).join('<'))).toThrow(/composable pairs .* at most/);
  });
  it('a work meter refuses once its budget is spent', () => {
    const m = new WorkMeter('counting', 10);
    m.spend(10);
    expect(() => m.spend(1)).toThrow(/counting takes more than 10 steps/);
  });
});

describe('IDX files are inflated no further than their header declares', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-idx-cost-'));
  const write = (name: string, bytes: Uint8Array): string => {
    writeFileSync(join(dir, name), bytes);
    return join(dir, name);
  };
  it('a header claiming more than the limit is refused before inflating', () => {
    const p = write('huge.gz', gzipSync(idxBytes([60000, 1000, 1000], [])));
    expect(() => readIdxFile(p)).toThrow(/more than the limit/);
  });
  it('a stream that inflates beyond its declared size stops at that size', () => {
    const p = write('bomb.gz', Buffer.concat([gzipSync(idxBytes([4], [1, 2, 3, 4])), gzipSync(new Uint8Array(2 ** 24))]));
    expect(() => readIdxFile(p)).toThrow(/inflates to more than 12 bytes, the size its IDX header declares/);
    const ok = write('ok.gz', gzipSync(idxBytes([4], [1, 2, 3, 4])));
    expect(Array.from(readIdxFile(ok).data)).toEqual([1, 2, 3, 4]);
    rmSync(dir, { recursive: true, force: true });
  });
});
