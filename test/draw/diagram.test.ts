import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/index.js';
import { diagramOf, stringDiagram } from '../../src/draw/index.js';
import type { Para } from '../../src/index.js';
import { morphismArb, sizes } from '../laws/arbitrary.js';
import { cli } from '../cli/helpers.js';

const GOLDEN: [string, string][] = [
  ['xor', 'dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid'],
  ['product', 'dense(4,4) >> (dense(2,3) @ dense(2,1)) >> relu'],
  ['residual', 'residual(dense(4,4) >> tanh) >> copy(4) >> add(4) >> dense(4,1)'],
];

/** Boxes and dots of a morphism: one per primitive that is drawn as a node. */
function countNodes(f: Para): number {
  if (f.kind === 'seq' || f.kind === 'par') return f.children.reduce((n, c) => n + countNodes(c), 0);
  if (f.kind === 'residual') return 2 + countNodes(f.children[0]!);
  return f.kind === 'id' ? 0 : 1;
}

function checkStructure(f: Para): void {
  const d = diagramOf(f);
  expect(d.nodes.length).toBe(countNodes(f));
  for (const n of d.nodes) {
    expect(n.x).toBeGreaterThanOrEqual(0);
    expect(n.y).toBeGreaterThanOrEqual(0);
    expect(n.x + n.w).toBeLessThanOrEqual(d.width);
    expect(n.y + n.h).toBeLessThanOrEqual(d.height);
  }
  for (let i = 0; i < d.nodes.length; i++) {
    for (let j = i + 1; j < d.nodes.length; j++) {
      const a = d.nodes[i]!,
        b = d.nodes[j]!;
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      expect(overlap, `${a.label || a.kind} overlaps ${b.label || b.kind} in ${f}`).toBe(false);
    }
  }
  const withParams = d.nodes.filter((n) => n.params.length).length;
  expect(d.wires.filter((w) => w.param).length).toBe(withParams);
  for (const w of d.wires)
    for (const [x, y] of w.points) {
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(d.width);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(d.height);
    }
}

describe('string diagrams', () => {
  it.each(GOLDEN)('%s matches its golden file and its structure', (name, spec) => {
    const svg = stringDiagram(parseSpec(spec));
    const file = join(__dirname, 'golden', `${name}.svg`);
    if (process.env.UPDATE_GOLDEN || !existsSync(file)) writeFileSync(file, svg);
    expect(svg).toBe(readFileSync(file, 'utf8'));
    checkStructure(parseSpec(spec));
    for (const box of spec.match(/dense\(\d,\d\)/g)!) expect(svg).toContain(`>${box}</text>`);
  });

  it('random composites of a few dozen morphisms lay out without overlaps', () => {
    fc.assert(
      fc.property(
        sizes.chain((a) => sizes.chain((b) => morphismArb(a, b, 4))),
        (f) => checkStructure(f),
      ),
      { numRuns: 150 },
    );
    const big = parseSpec(Array.from({ length: 30 }, (_, i) => (i % 2 ? 'tanh' : 'dense(8,8)')).join(' >> '));
    checkStructure(big);
  });

  it('a long composite wraps into rows no wider than maxWidth (a wider factor alone on its row); one that fits stays one row', () => {
    const chain = parseSpec(Array.from({ length: 60 }, (_, i) => (i % 2 ? 'tanh' : 'dense(8,8)')).join(' >> '));
    const d = diagramOf(chain);
    const lead = d.nodes.reduce((m, n) => Math.min(m, n.x), Infinity); // the outer wires' margin, each side
    expect(d.width - 2 * lead).toBeLessThanOrEqual(1400);
    const rows = new Set(d.nodes.map((n) => n.y)).size;
    expect(rows).toBeGreaterThanOrEqual(3);
    checkStructure(chain);
    // the negative control: unwrapped (maxWidth ∞) it is one row several times wider
    const flat = diagramOf(chain, { maxWidth: Infinity });
    expect(new Set(flat.nodes.map((n) => n.y)).size).toBe(1);
    expect(flat.width).toBeGreaterThan(3 * 1400);
    // the two-block transformer: each block (wider than 1400) a row of its own, the whole far narrower than one row
    const lm = parseSpec('embedding(96,64) >> transformer(64,4,256,rope) >> transformer(64,4,256,rope) >> layernorm(64) >> dense(64,96)');
    const block = diagramOf(parseSpec('transformer(64,4,256,rope)'));
    const wrappedLm = diagramOf(lm);
    expect(wrappedLm.width).toBeLessThan(diagramOf(lm, { maxWidth: Infinity }).width / 2);
    expect(wrappedLm.width).toBeLessThanOrEqual(block.width + 100);
    expect(wrappedLm.frames).toHaveLength(2);
    expect(wrappedLm.frames[1]!.y).toBeGreaterThan(wrappedLm.frames[0]!.y + wrappedLm.frames[0]!.h); // stacked, not side by side
    for (const n of wrappedLm.nodes) expect(n.x + n.w).toBeLessThanOrEqual(wrappedLm.width);
    // a short one is unchanged: the golden files above are one row
    expect(diagramOf(parseSpec('dense(2,4) >> relu'))).toEqual(diagramOf(parseSpec('dense(2,4) >> relu'), { maxWidth: Infinity }));
  });

  it('paralens draw writes an SVG file; bad input exits 2', async () => {
    const out = join(require('node:os').tmpdir(), `paralens-draw-${process.pid}.svg`);
    const r = await cli('draw', '--model', 'dense(2,4) >> relu', '-o', out, '--json');
    expect(r.code).toBe(0);
    expect(r.json().file).toBe(out);
    expect(readFileSync(out, 'utf8')).toMatch(/^<svg /);
    expect((await cli('draw', '--model', 'dense(2,4) >> dense(3,1)')).code).toBe(2);
    expect((await cli('draw')).err).toMatch(/--model SPEC or --load FILE is required/);
  });

  it('paralens draw counts the bytes it writes, not the characters (labels hold ·, ᵀ, √)', async () => {
    const out = join(require('node:os').tmpdir(), `paralens-draw-bytes-${process.pid}.svg`);
    const r = await cli('draw', '--model', 'transformer(8,2,16,rope)', '-o', out, '--json');
    expect(r.code, r.err).toBe(0);
    const file = readFileSync(out);
    expect(file.toString('utf8').length).toBeLessThan(file.length); // the negative control: characters would undercount
    expect(r.json().bytes).toBe(file.length);
    expect((await cli('draw', '--model', 'transformer(8,2,16,rope)', '-o', out, '--force')).out).toBe(`wrote ${out} (${file.length} bytes)\n`);
  });
});

describe('writing files', () => {
  it('a file that cannot be written exits 2 naming it, before any work', async () => {
    const r = await cli('draw', '--model', 'dense(2,4)', '-o', '/nonexistent-dir/x.svg');
    expect(r.code).toBe(2);
    expect(r.err).toBe('paralens: cannot write /nonexistent-dir/x.svg: directory /nonexistent-dir does not exist\n');
    const t = await cli('tour', '--report', '/nonexistent-dir/t.html', '--only', 'para');
    expect(t.code).toBe(2);
    expect(t.out).toBe('');
  });
});

describe('a transformer block', () => {
  it('is drawn legibly: a frame named transformer(…) around its expansion, two residual skips, the heads side by side', () => {
    const f = parseSpec('embedding(96,64) >> transformer(64,4,256,rope) >> layernorm(64) >> dense(64,96)').at([64]);
    const d = diagramOf(f);
    expect(d.frames.map((fr) => fr.label)).toEqual(['transformer(64,4,256,rope)']);
    const labels = d.nodes.map((n) => n.label);
    expect(labels.filter((l) => /^head \d: softmax\(q·kᵀ\/√16 \+ rope\)·v, causal$/.test(l))).toHaveLength(4);
    expect(d.nodes.filter((n) => n.kind === 'add')).toHaveLength(2);
    expect(d.wires.filter((w) => w.label === 'skip')).toHaveLength(2);
    // the frame holds every node of the block and no node outside it
    const fr = d.frames[0]!;
    const inside = d.nodes.filter((n) => n.x >= fr.x && n.x + n.w <= fr.x + fr.w && n.y >= fr.y && n.y + n.h <= fr.y + fr.h);
    expect(inside.map((n) => n.label)).toEqual(expect.arrayContaining(['layernorm(64)', 'dense(64,256)', 'gelu', 'dense(256,64)', '·W_oᵀ']));
    expect(inside.some((n) => n.label.startsWith('embedding'))).toBe(false);
    for (let i = 0; i < d.nodes.length; i++)
      for (let j = i + 1; j < d.nodes.length; j++) {
        const a = d.nodes[i]!,
          b = d.nodes[j]!;
        expect(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h, `${a.label} overlaps ${b.label}`).toBe(false);
      }
    const svg = stringDiagram(f);
    expect(svg).toContain('class="frame"');
    expect(svg).toContain('head 4');
  });

  it('many heads are drawn as the first, a count, and the last', () => {
    const d = diagramOf(parseSpec('attention(64,16,none,none)').at([8, 64]));
    expect(d.nodes.map((n) => n.label).filter((l) => l.startsWith('head') || l.includes('more heads'))).toEqual([
      'head 1: softmax(q·kᵀ/√4)·v',
      '… 14 more heads …',
      'head 16: softmax(q·kᵀ/√4)·v',
    ]);
  });
});
