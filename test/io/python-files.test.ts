import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/catalogue/index.js';
import { ExportError } from '../../src/io/errors.js';
import { buildPytorchProject } from '../../src/io/pytorch/project.js';
import { TORCH_RULES, torchModule } from '../../src/io/pytorch/rules.js';
import { assign, classSource, replaceClass, substitute } from '../../src/io/pytorch/python-template.js';
import type { Para } from '../../src/para/para.js';
import { EXAMPLES } from '../catalogue/examples.js';
import { built, describeWith, itWith, python, PYTHON } from '../peer/available.js';

/**
 * The fixed Python of the PyTorch export lives in real .py files (src/io/pytorch/python/):
 * Python compiles them as they stand, and every model.py and train.py made from them; dist/
 * carries the current copies (the CLI runs from there); the template slots are each found
 * exactly once; layers.py holds exactly the classes the rules name.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCES = join(root, 'src/io/pytorch/python');
const DIST = join(root, 'dist/src/io/pytorch/python');
const FILES = readdirSync(SOURCES).filter((f) => f.endsWith('.py'));
const dir = mkdtempSync(join(tmpdir(), 'paralens-py-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every torch-exportable catalogue example at its input shape. */
function exportable(): [string, Para][] {
  const gaps = (m: Para): boolean => !TORCH_RULES.has(m.kind) || m.children.some(gaps);
  // a rule may still refuse a morphism of its kind by name (a scan of a cell torch.nn has no class for)
  const refused = (m: Para): boolean => {
    try {
      torchModule(m);
      return false;
    } catch (e) {
      if (e instanceof ExportError) return true;
      throw e;
    }
  };
  return Object.entries(EXAMPLES)
    .map(([name, ex]) => [name, parseSpec(ex.spec).at(ex.dom)] as [string, Para])
    .filter(([, m]) => !gaps(m) && !refused(m));
}

/** python3 -m py_compile on the files, its caches in a temporary directory (nothing written beside the sources). */
function pyCompile(files: readonly string[]): ReturnType<typeof spawnSync> {
  return spawnSync(PYTHON, ['-m', 'py_compile', ...files], { encoding: 'utf8', env: { ...process.env, PYTHONPYCACHEPREFIX: join(dir, 'cache') } });
}

describeWith(python(), 'the Python files of the PyTorch export compile', () => {
  it('src/io/pytorch/python/*.py as they stand', () => {
    expect(FILES.sort()).toEqual(['layers.py', 'model.py', 'train.py']);
    const r = pyCompile(FILES.map((f) => join(SOURCES, f)));
    expect(r.status, String(r.stderr)).toBe(0);
  });

  it('the model.py and train.py of every exportable catalogue layer', () => {
    const written: string[] = [];
    for (const [name, m] of exportable()) {
      const files = buildPytorchProject(m, m.init(0), { settings: { loss: 'mse', epochs: 2 } }).files;
      for (const f of ['model.py', 'train.py']) {
        const path = join(dir, `${name}-${f}`);
        writeFileSync(path, files[f]!);
        written.push(path);
      }
    }
    expect(written.length).toBeGreaterThan(60);
    const r = pyCompile(written);
    expect(r.status, String(r.stderr)).toBe(0);
  });
});

itWith(built(DIST), 'dist/ carries the current Python files (npm run build copies them: scripts/copy-python.mjs)', () => {
  for (const f of FILES) expect(readFileSync(join(DIST, f), 'utf8'), `dist/src/io/pytorch/python/${f}`).toBe(readFileSync(join(SOURCES, f), 'utf8'));
});

describe('layers.py holds the classes the PyTorch rules name', () => {
  it('every class a rule names is there, and every class there is named by a rule', () => {
    const named = new Set(exportable().flatMap(([, m]) => torchModule(m).helpers));
    const defined = [...readFileSync(join(SOURCES, 'layers.py'), 'utf8').matchAll(/^class (\w+)\(/gm)].map((m) => m[1]!);
    expect(defined.filter((c) => !named.has(c))).toEqual([]);
    expect([...named].filter((c) => !defined.includes(c))).toEqual([]);
  });
});

describe('the template slots', () => {
  const py =
    '"""Written by paralens $version for $spec."""\nSPEC = ""\n\n\nclass Model(nn.Module):\n    def f(self):\n\n        return 1\n\n\ndef load():\n    pass\n';

  it('fill docstring placeholders, one-line assignments and top-level classes', () => {
    expect(substitute(py, { version: '1.2', spec: 'dense(2,1)' })).toMatch(/^"""Written by paralens 1\.2 for dense\(2,1\)\."""/);
    expect(assign(py, 'SPEC', '"relu $x"')).toContain('\nSPEC = "relu $x"\n');
    expect(classSource(py, 'Model')).toBe('class Model(nn.Module):\n    def f(self):\n\n        return 1');
    expect(replaceClass(py, 'Model', 'class A:\n    pass')).toContain('SPEC = ""\n\n\nclass A:\n    pass\n\n\ndef load():');
  });

  it('refuse a slot that is not there exactly once', () => {
    expect(() => substitute(py, { author: 'x' })).toThrow(/no \$author/);
    expect(() => assign(py, 'DATA', '{}')).toThrow(/0 assignments to DATA/);
    expect(() => assign(`${py}SPEC = ""\n`, 'SPEC', '""')).toThrow(/2 assignments to SPEC/);
    expect(() => classSource(py, 'Missing')).toThrow(/no class Missing/);
  });
});
