import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering of docs/architecture.md, checked on every import of src/: each top-level folder
 * of src/ (and each top-level file) is one floor, and a file may import its own folder or a
 * floor below — no import runs up, none sideways between two folders of one floor, and no chain
 * of imports (type-only ones included) returns to where it started. The floors are read from
 * the diagram in docs/architecture.md, so the page and the tree cannot drift apart: every entry
 * of `ls src/` must stand on a floor there, and every folder named there must exist.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** The floors diagram of docs/architecture.md: lines `NN  name/  name.ts …` between the two fences after "## The floors". */
function floorsFromDocs(text: string): Map<string, number> {
  const section = text.slice(text.indexOf('## The floors'));
  const block = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  const floors = new Map<string, number>();
  for (const line of block.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    for (const name of m[2]!.split(/\s+/)) if (/^[a-z-]+(\/|\.ts)$/.test(name)) floors.set(name.replace(/\/$/, ''), Number(m[1]));
  }
  return floors;
}

const FLOORS = floorsFromDocs(readFileSync(join(root, 'docs', 'architecture.md'), 'utf8'));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return p.includes(join('wasm', 'assembly')) ? [] : walk(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

function roomOf(file: string): readonly [string, number] {
  const top = relative(src, file).split('\\').join('/').split('/')[0]!;
  const floor = FLOORS.get(top);
  if (floor === undefined) throw new Error(`src/${top} is on no floor of docs/architecture.md; add it there`);
  return [top, floor];
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) out.push(m[1]!);
  return out;
}

const files = walk(src);
const graph = new Map<string, string[]>();
for (const f of files) {
  graph.set(
    f,
    importsOf(f)
      .filter((s) => s.startsWith('.'))
      .map((s) => normalize(join(dirname(f), s.replace(/\.js$/, '.ts')))),
  );
}

/** Imports that run up the layers or sideways between rooms of one rank. */
function upwardImports(g: ReadonlyMap<string, readonly string[]>): string[] {
  const wrong: string[] = [];
  for (const [f, targets] of g) {
    const [room, rank] = roomOf(f);
    for (const t of targets) {
      const [troom, trank] = roomOf(t);
      if (troom !== room && trank >= rank) wrong.push(`${relative(src, f)} (${room}, ${rank}) imports ${relative(src, t)} (${troom}, ${trank})`);
    }
  }
  return wrong;
}

describe('the layout is the architecture', () => {
  it('every file is in a room, and every import goes to its own room or a lower one', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('no import circle between files (type-only imports included)', () => {
    // Tarjan's strongly connected components; any component of two or more files is a circle
    let index = 0;
    const idx = new Map<string, number>(),
      low = new Map<string, number>(),
      onStack = new Set<string>(),
      stack: string[] = [];
    const circles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      onStack.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(relative(src, w));
        } while (w !== v);
        if (comp.length > 1) circles.push(comp.sort());
      }
    };
    for (const f of graph.keys()) if (!idx.has(f)) visit(f);
    expect(circles).toEqual([]);
  });

  it('every import resolves to a file of src/ (nothing from web/, bench/ or test/)', () => {
    const outside: string[] = [];
    for (const [f, targets] of graph) for (const t of targets) if (!graph.has(t)) outside.push(`${relative(src, f)} imports ${relative(root, t)}`);
    expect(outside).toEqual([]);
  });

  it('only the command line and node*.ts files use Node built-ins (the rest runs in a browser)', () => {
    const nodeUsers = files.filter((f) => importsOf(f).some((s) => s.startsWith('node:'))).map((f) => relative(src, f).split('\\').join('/'));
    expect(nodeUsers.filter((f) => !f.startsWith('cli/') && !/(^|\/)node[^/]*\.ts$/.test(f))).toEqual([]);
  });

  it('the floors of docs/architecture.md are the tree: every entry of src/ stands on one, and every name there exists', () => {
    const entries = readdirSync(src).filter((f) => f.endsWith('.ts') || statSync(join(src, f)).isDirectory());
    expect(entries.filter((f) => !FLOORS.has(f)).map((f) => `src/${f} is on no floor`)).toEqual([]);
    expect([...FLOORS.keys()].filter((f) => !entries.includes(f)).map((f) => `${f} is named on a floor but src/ has no such entry`)).toEqual([]);
  });

  it('the checker sees a violation when there is one (negative control)', () => {
    expect(roomOf(join(src, 'para/para.ts'))[1]).toBeLessThan(roomOf(join(src, 'train/trainer.ts'))[1]);
    expect(roomOf(join(src, 'nn/markov/dropout.ts'))[1]).toBeLessThan(roomOf(join(src, 'catalogue/catalogue.ts'))[1]);
    expect(roomOf(join(src, 'experiments/markov/uncertainty.ts'))[1]).toBeGreaterThan(roomOf(join(src, 'train/trainer.ts'))[1]);
    expect(() => roomOf(join(src, 'nowhere/x.ts'))).toThrow(/no floor/);
    const p = (f: string): string => join(src, f);
    const bad = new Map([
      [p('para/para.ts'), [p('train/trainer.ts')]],
      [p('topos/index.ts'), [p('markov/laws.ts')]],
      [p('symmetry/group/rotary.ts'), [p('nn/attention.ts')]],
      [p('train/trainer.ts'), [p('para/para.ts')]],
      [p('nn/equivariant/e3-conv.ts'), [p('nn/dense.ts')]],
    ]);
    const floor = (f: string): number => FLOORS.get(f)!;
    expect(upwardImports(bad)).toEqual([
      `para/para.ts (para, ${floor('para')}) imports train/trainer.ts (train, ${floor('train')})`,
      `topos/index.ts (topos, ${floor('topos')}) imports markov/laws.ts (markov, ${floor('markov')})`,
      `symmetry/group/rotary.ts (symmetry, ${floor('symmetry')}) imports nn/attention.ts (nn, ${floor('nn')})`,
    ]);
  });
});
