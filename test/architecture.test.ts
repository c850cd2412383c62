import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering of docs/architecture.md, checked on every import of src/: a file may import
 * its own room, or a room of lower rank; no import runs up, none sideways between two rooms
 * of the same rank, and no chain of imports (type-only ones included) returns to where it
 * started. A room is the longest matching path prefix below src/.
 */
const ROOMS: readonly (readonly [string, number])[] = [
  ['errors.ts', 0], ['version.ts', 0],
  ['tensor', 1], ['random', 1],
  ['linalg', 2],
  ['category', 3], ['data', 3], ['equivariant/group', 3],
  ['equivariant/solve', 4], ['para', 4],
  ['nn', 5], ['equivariant/irreps', 5],
  ['markov/layers', 6], ['colimit/layers', 6], ['natural/layers', 6], ['equivariant/layers', 6],
  ['spec', 7],
  ['io', 8], ['optim', 8], ['draw', 8],
  ['train', 9],
  ['markov', 10], ['colimit', 10], ['natural', 10], ['topos', 10], ['equivariant', 10],
  ['ends', 11],
  ['cli', 12], ['index.ts', 12],
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return p.includes(join('wasm', 'assembly')) ? [] : walk(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

function roomOf(file: string): readonly [string, number] {
  const rel = relative(src, file).split('\\').join('/');
  let best: readonly [string, number] | undefined;
  for (const r of ROOMS) {
    if ((rel === r[0] || rel.startsWith(`${r[0]}/`)) && (!best || r[0].length > best[0].length)) best = r;
  }
  if (!best) throw new Error(`${rel} is in no room of the layering; add it to ROOMS and docs/architecture.md`);
  return best;
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
    const idx = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>(), stack: string[] = [];
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

  it('the checker sees a violation when there is one (negative control)', () => {
    expect(roomOf(join(src, 'para/para.ts'))[1]).toBeLessThan(roomOf(join(src, 'train/trainer.ts'))[1]);
    expect(roomOf(join(src, 'markov/layers/dropout.ts'))[1]).toBeLessThan(roomOf(join(src, 'spec/catalogue.ts'))[1]);
    expect(roomOf(join(src, 'markov/methods.ts'))[1]).toBeGreaterThan(roomOf(join(src, 'spec/catalogue.ts'))[1]);
    expect(() => roomOf(join(src, 'nowhere/x.ts'))).toThrow(/no room/);
    const p = (f: string): string => join(src, f);
    const bad = new Map([[p('para/para.ts'), [p('train/trainer.ts')]], [p('topos/index.ts'), [p('markov/methods.ts')]], [p('train/trainer.ts'), [p('para/para.ts')]]]);
    expect(upwardImports(bad)).toEqual([
      'para/para.ts (para, 4) imports train/trainer.ts (train, 9)',
      'topos/index.ts (topos, 10) imports markov/methods.ts (markov, 10)',
    ]);
  });
});
