import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePoset } from '../../../src/category/finite.js';
import { networkSite } from '../../../src/topos/network/site.js';
import { parseEdges } from '../../../src/topos/network/graph.js';
import { omegaHasse, sieveLabel, sitePicture, stackPicture } from '../../../src/topos/network/site-picture.js';
import { cyclicGroup, groupAction, groupPresheaf } from '../../../src/topos/network/stack.js';
import { sieves } from '../../../src/topos/presheaf/sieve.js';
import { cli } from '../../cli/helpers.js';

const count = (s: string, re: RegExp): number => (s.match(re) ?? []).length;
/** Node boxes of a picture: [x, y, w, h]. */
const boxes = (svg: string): number[][] =>
  [...svg.matchAll(/<g class="node [a-z]+"><rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"/g)].map((m) => m.slice(1).map(Number));

describe('pictures of the topos of a network', () => {
  const fork = networkSite(parseEdges('x1>h, x2>h, h>y'));

  it('the site: one node per object with A★ and A marked, one edge per generating arrow, nodes apart', () => {
    const svg = sitePicture(fork);
    expect(count(svg, /<g class="node /g)).toBe(fork.category.objects.length);
    expect(count(svg, /<g class="node star">/g)).toBe(1);
    expect(count(svg, /<g class="node tank">/g)).toBe(1);
    expect(count(svg, /<g class="edge">/g)).toBe(fork.generators.length);
    expect(svg).toContain('>A★(h)<');
    const b = boxes(svg);
    for (let i = 0; i < b.length; i++)
      for (let j = i + 1; j < b.length; j++) {
        const [p, q] = [b[i]!, b[j]!];
        expect(p[0]! < q[0]! + q[2]! && q[0]! < p[0]! + p[2]! && p[1]! < q[1]! + q[3]! && q[1]! < p[1]! + p[3]!).toBe(false);
      }
    // a chain has no forks: no A★ drawn (negative control)
    expect(sitePicture(networkSite(parseEdges('x>h, h>y')))).not.toContain('class="node star"');
  });

  it('Ω(A(h)) as a Hasse diagram: one node per sieve, an edge exactly where one sieve covers another', () => {
    const C = fork.category,
      c = fork.forks[0]!.tank;
    const all = sieves(C, c);
    const svg = omegaHasse(C, c);
    expect(count(svg, /<g class="node /g)).toBe(all.length);
    // covering pairs, by brute force over the inclusion order
    const sub = (a: readonly number[], b: readonly number[]) => a.every((x) => b.includes(x));
    const lt = (i: number, j: number) => all[i]!.arrows.length < all[j]!.arrows.length && sub(all[i]!.arrows, all[j]!.arrows);
    let covers = 0;
    all.forEach((_, i) =>
      all.forEach((__, j) => {
        if (lt(i, j) && !all.some((___, k) => lt(i, k) && lt(k, j))) covers++;
      }),
    );
    expect(count(svg, /<g class="edge">/g)).toBe(covers);
    expect(sieveLabel(C, all[0]!)).toBe('∅');
    expect(sieveLabel(C, all[all.length - 1]!)).toBe('⟨A(h)⟩');
    // the Sierpiński topos is not Boolean: its middle sieve is marked; a discrete poset's Ω is Boolean (negative control)
    expect(omegaHasse(parsePoset('0<1'), 1)).toContain('class="node star"');
    expect(omegaHasse(parsePoset('a, b'), 0)).not.toContain('class="node star"');
  });

  it('a stack: one box per object of the site, one node per (U, ξ), the restrictions between fibres', () => {
    const C = parsePoset('y<x');
    const Z2 = cyclicGroup(2);
    const F = groupPresheaf(
      C,
      [Z2, Z2],
      C.arrows.map(() => [0, 1]),
    );
    const pats = ['00', '01', '10', '11'];
    const swap = [0, 2, 1, 3];
    const A = groupAction(
      F,
      [pats, pats],
      [
        [[0, 1, 2, 3], swap],
        [[0, 1, 2, 3], swap],
      ],
      C.arrows.map((a) => (a.dom === a.cod ? [0, 1, 2, 3] : [3, 2, 1, 0])),
    );
    const svg = stackPicture(F, A);
    expect(count(svg, /<g class="cluster">/g)).toBe(2);
    expect(count(svg, /<g class="node /g)).toBe(8);
    // per fibre one swap arrow (01 ↔ 10), and four restrictions along y ≤ x
    expect(count(svg, /<g class="edge">/g)).toBe(2 + 4);
  });

  it('the pictures in docs/topos-network.md are what the code draws (PARALENS_UPDATE_SCREENSHOTS=1 rewrites them)', () => {
    const C = parsePoset('y<x');
    const Z2 = cyclicGroup(2);
    const F = groupPresheaf(
      C,
      [Z2, Z2],
      C.arrows.map(() => [0, 1]),
    );
    const pats = ['00', '01', '10', '11'];
    const A = groupAction(
      F,
      [pats, pats],
      [
        [
          [0, 1, 2, 3],
          [0, 2, 1, 3],
        ],
        [
          [0, 1, 2, 3],
          [0, 2, 1, 3],
        ],
      ],
      C.arrows.map((a) => (a.dom === a.cod ? [0, 1, 2, 3] : [3, 2, 1, 0])),
    );
    const pictures: [string, string][] = [
      ['topos-site.svg', sitePicture(fork, 'the site of x1>h, x2>h, h>y')],
      ['topos-omega.svg', omegaHasse(fork.category, fork.forks[0]!.tank)],
      ['topos-stack.svg', stackPicture(F, A)],
    ];
    const dir = join(__dirname, '..', '..', '..', 'docs', 'screenshots');
    for (const [name, svg] of pictures) {
      if (process.env.PARALENS_UPDATE_SCREENSHOTS) writeFileSync(join(dir, name), svg);
      expect(
        readFileSync(join(dir, name), 'utf8'),
        `docs/screenshots/${name} is stale: PARALENS_UPDATE_SCREENSHOTS=1 npx vitest run ${'test/topos/network/site-picture.test.ts'}`,
      ).toBe(svg);
    }
  });

  it('paralens topos site --svg FILE writes the site, --omega OBJECT its Ω; a bad object is exit 2 with no file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralens-site-'));
    const r = await cli('topos', 'site', '--edges', 'x1>h, x2>h, h>y', '--svg', join(dir, 'site.svg'), '--json');
    expect(r.code).toBe(0);
    expect(r.json().svg).toBe(join(dir, 'site.svg'));
    expect(readFileSync(join(dir, 'site.svg'), 'utf8')).toMatch(/^<svg [^>]*>.*class="node star"/s);
    const o = await cli('topos', 'site', '--edges', 'x1>h, x2>h, h>y', '--omega', 'A(h)', '--svg', join(dir, 'omega.svg'));
    expect(o.code).toBe(0);
    expect(o.out).toMatch(/Ω\(A\(h\)\)\s+16 sieves/);
    expect(count(readFileSync(join(dir, 'omega.svg'), 'utf8'), /<g class="node /g)).toBe(16);
    const bad = await cli('topos', 'site', '--edges', 'x1>h', '--omega', 'z', '--svg', join(dir, 'bad.svg'));
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--omega 'z' is not an object of the site; objects: x1, h/);
    expect(existsSync(join(dir, 'bad.svg'))).toBe(false);
  });
});
