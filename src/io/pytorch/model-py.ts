import type { Para } from '../../para/para.js';
import { VERSION } from '../../version.js';
import { helperSource } from './rules.js';
import { SAFETENSORS_PY } from './safetensors-py.js';
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

/** The source of model.py for morphism `m` (domain fixed) translated to `t`; `stamp` is the export's (load() refuses weights of another). */
export function modelPy(m: Para, t: TorchModule, stamp = ''): string {
  const names = stateNames(m, t);
  const paralens = new Map(names.params.map((s, i) => [s, m.params[i]!.name]));
  const entries = [...names.params.map((s) => [s, paralens.get(s)!]), ...names.aliases.map((a) => [a.name, paralens.get(a.of)!])];
  const map = entries.map(([s, p]) => `    ${pyString(s!)}: ${pyString(p!)},`).join('\n');
  const helpers = usedHelpers(t).map(helperSource).join('\n\n\n');
  return `"""The PyTorch mirror of a paralens model, written by \`paralens export --format pytorch\` (paralens ${VERSION}).

    spec         ${String(m)}
    input shape  [batch, ${m.dom!.join(', ')}]

Model is a torch.nn.Module with one submodule per layer of the Para composite; load(path)
returns it with the weights of a safetensors file: weights.safetensors beside this file
(state_dict names, fixed bases included) or a paralens model file such as the
trained.safetensors that train.py writes (paralens names; the fixed bases, if any, are then
taken from weights.safetensors). save_paralens writes a paralens model file that
\`paralens predict --load FILE\` reads.
"""
import json
import math
import os
import struct

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = ${pyString(String(m))}
PROJECT = ${pyString(stamp)}
INPUT_SHAPE = ${pyLiteral(m.dom)}
PARALENS_VERSION = ${pyString(VERSION)}
# state_dict name of each trained parameter → its name in a paralens model file (a tied weight has two state_dict names)
PARALENS_NAMES = {
${map}
}
# fixed tensors (derived equivariant bases): saved in weights.safetensors, never trained
BUFFERS = ${pyLiteral(names.buffers)}


${SAFETENSORS_PY}
${helpers ? `\n\n${helpers}\n` : ''}

${modelClass(m, t)}


def load(path=os.path.join(HERE, 'weights.safetensors')):
    """Model with the weights of a safetensors file (state_dict names, or a paralens model file)."""
    tensors, metadata = read_safetensors(path)
    # weights of another model, or of another export of this one (a project left half written), are refused
    if 'spec' in metadata and metadata['spec'] != SPEC:
        raise ValueError(f"{path} holds {metadata['spec']!r}, not {SPEC!r}")
    if 'project' in metadata and metadata['project'] != PROJECT:
        raise ValueError(f"{path} is the weights of export {metadata['project']}, not of this model.py ({PROJECT}): the project mixes two exports; export it again")
    if metadata.get('format') == 'paralens':
        state = {s: tensors[p] for s, p in PARALENS_NAMES.items()}
        if BUFFERS:
            fixed, _ = read_safetensors(os.path.join(HERE, 'weights.safetensors'))
            state.update({name: fixed[name] for name in BUFFERS})
    else:
        state = tensors
    model = Model()
    model.load_state_dict(state)
    return model


def save_paralens(model, path, settings):
    """Writes model's parameters as a paralens model file: paralens names, the spec and settings in __metadata__."""
    state = model.state_dict()
    tensors = {p: state[s].to(torch.float32) for s, p in PARALENS_NAMES.items()}
    metadata = {'format': 'paralens', 'spec': SPEC, 'input_shape': json.dumps(INPUT_SHAPE, separators=(',', ':')),
                'paralens_version': PARALENS_VERSION, 'training': json.dumps(settings)}
    write_safetensors(path, tensors, metadata)
`;
}
