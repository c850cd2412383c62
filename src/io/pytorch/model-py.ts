import type { Para } from '../../para/para.js';
import { VERSION } from '../../version.js';
import { pythonFile } from './node-python.js';
import { assign, classSource, replaceClass, substitute } from './python-template.js';
import { definedHelper } from './rules.js';
import type { TorchModule } from './torch-module.js';

/** A Python string literal (JSON's escapes are Python's for these). */
const pyString = (s: string): string => JSON.stringify(s);

/** A Python literal of a JSON value (dicts, lists, strings, numbers, booleans, None). */
export function pyLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'None';
  if (typeof v === 'string') return pyString(v);
  if (Array.isArray(v)) return `[${v.map(pyLiteral).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => `${pyString(k)}: ${pyLiteral(x)}`)
    .join(', ')}}`;
}

/** The helper classes a module uses, each once, in order of first use. */
function usedHelpers(t: TorchModule): string[] {
  return [...new Set(t.helpers)];
}

/** The source of a helper class: one defined with defineTorchRules, else the class of python/layers.py. */
export function helperSource(name: string): string {
  return definedHelper(name) ?? classSource(pythonFile('layers.py'), name);
}

/**
 * The class Model: an nn.Sequential subclass when the morphism is a composite `>>` (so
 * its state_dict names are paralens's `0.weight`, `2.1.bias`, …), else a module holding
 * the translated morphism as `net`.
 */
function modelClass(m: Para, t: TorchModule): string {
  const doc = `    """${String(m).replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"')}"""`;
  if (m.kind === 'seq') {
    const inner = t.code.replace(/^nn\.Sequential\(\n/, '').replace(/\n\)$/, '');
    return `class Model(nn.Sequential):\n${doc}\n    def __init__(self):\n        super().__init__(\n${inner.replace(/^/gm, '        ')}\n        )`;
  }
  return `class Model(nn.Module):\n${doc}\n    def __init__(self):\n        super().__init__()\n        self.net = ${t.code.split('\n').join('\n        ')}\n\n    def forward(self, x):\n        return self.net(x)`;
}

/** The state_dict names of Model: t's names, under `net.` unless Model is the Sequential itself. */
export function stateNames(m: Para, t: TorchModule): { params: string[]; buffers: string[]; aliases: { name: string; of: string }[] } {
  const p = m.kind === 'seq' ? '' : 'net.';
  return {
    params: t.params.map((n) => p + n),
    buffers: t.buffers.map((b) => p + b.name),
    aliases: (t.aliases ?? []).map((a) => ({ name: p + a.name, of: p + a.of })),
  };
}

/**
 * The source of model.py for morphism `m` (domain fixed) translated to `t`: python/model.py
 * with the spec, the names and the class Model filled in, and before Model the helper
 * classes it uses. model.py reads and writes safetensors with torch alone (Debian's
 * python3-torch has no `safetensors` package), padding the header to a multiple of 8 and
 * replacing files atomically, as src/io/safetensors.ts does.
 */
export function modelPy(m: Para, t: TorchModule): string {
  const names = stateNames(m, t);
  const paralens = new Map(names.params.map((s, i) => [s, m.params[i]!.name]));
  const entries = [...names.params.map((s) => [s, paralens.get(s)!]), ...names.aliases.map((a) => [a.name, paralens.get(a.of)!])];
  const map = entries.map(([s, p]) => `    ${pyString(s!)}: ${pyString(p!)},`).join('\n');
  const helpers = usedHelpers(t).map(helperSource);
  let py = substitute(pythonFile('model.py'), { version: VERSION, spec: String(m), input_shape: m.dom!.join(', ') });
  py = assign(py, 'SPEC', pyString(String(m)));
  py = assign(py, 'INPUT_SHAPE', pyLiteral(m.dom));
  py = assign(py, 'PARALENS_VERSION', pyString(VERSION));
  py = assign(py, 'PARALENS_NAMES', `{\n${map}\n}`);
  py = assign(py, 'BUFFERS', pyLiteral(names.buffers));
  return replaceClass(py, 'Model', [...helpers, modelClass(m, t)].join('\n\n\n'));
}
