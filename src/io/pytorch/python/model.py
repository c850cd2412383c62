"""The PyTorch mirror of a paralens model, written by `paralens export --format pytorch` (paralens $version).

    spec         $spec
    input shape  [batch, $input_shape]

Model is a torch.nn.Module with one submodule per layer of the Para composite; load(path)
returns it with the weights of a safetensors file: weights.safetensors beside this file
(state_dict names, fixed bases included) or a paralens model file such as the
trained.safetensors that train.py writes (paralens names; the fixed bases, if any, are then
taken from weights.safetensors). save_paralens writes a paralens model file that
`paralens predict --load FILE` reads.
"""
import json
import math
import os
import struct

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = ""
# the export this file belongs to: weights.safetensors carries the same stamp
PROJECT = ""
INPUT_SHAPE = []
PARALENS_VERSION = ""
# state_dict name of each trained parameter → its name in a paralens model file (a tied weight has two state_dict names)
PARALENS_NAMES = {}
# fixed tensors (derived equivariant bases): saved in weights.safetensors, never trained
BUFFERS = []


DTYPES = {'F32': torch.float32, 'F64': torch.float64, 'F16': torch.float16, 'BF16': torch.bfloat16,
          'I64': torch.int64, 'I32': torch.int32, 'I16': torch.int16, 'I8': torch.int8, 'U8': torch.uint8, 'BOOL': torch.bool}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


def read_safetensors(path):
    """The tensors of a safetensors file by name, and its __metadata__."""
    with open(path, 'rb') as f:
        raw = f.read()
    (n,) = struct.unpack('<Q', raw[:8])
    if n > len(raw) - 8:
        raise ValueError(f'{path}: header length {n} goes beyond the end of the file')
    header = json.loads(raw[8:8 + n])
    metadata = header.pop('__metadata__', {})
    tensors = {}
    for name, e in header.items():
        begin, end = e['data_offsets']
        dtype = DTYPES[e['dtype']]
        data = bytearray(raw[8 + n + begin:8 + n + end])
        t = torch.frombuffer(data, dtype=dtype) if data else torch.zeros(0, dtype=dtype)
        tensors[name] = t.reshape(e['shape'])
    return tensors, metadata


def write_safetensors(path, tensors, metadata=None):
    """Writes tensors (name → tensor, in that order) and string metadata; atomic."""
    header, blobs, at = {}, [], 0
    if metadata:
        header['__metadata__'] = {k: str(v) for k, v in metadata.items()}
    for name, t in tensors.items():
        b = t.detach().cpu().contiguous().numpy().tobytes()
        header[name] = {'dtype': DTYPE_NAMES[t.dtype], 'shape': list(t.shape), 'data_offsets': [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header).encode('utf-8')
    text += b' ' * (-len(text) % 8)
    tmp = f'{path}.{os.getpid()}.tmp'
    with open(tmp, 'wb') as f:
        f.write(struct.pack('<Q', len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class Model(nn.Module):
    """The exported morphism: paralens export writes its layers here, and before it the classes of layers.py they use."""
    def __init__(self):
        super().__init__()
        self.net = nn.Identity()

    def forward(self, x):
        return self.net(x)


def load(path=os.path.join(HERE, 'weights.safetensors')):
    """Model with the weights of a safetensors file (state_dict names, or a paralens model file)."""
    tensors, metadata = read_safetensors(path)
    # weights of another model, or of another export of this one (a project left half written), are refused
    if ('spec' in metadata or metadata.get('format') == 'paralens') and metadata.get('spec') != SPEC:
        raise ValueError(f"{path} holds {metadata.get('spec')!r}, not {SPEC!r}")
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


def save_paralens(model, path, settings, preprocessing=None):
    """Writes model's parameters as a paralens model file: paralens names, the spec, settings and preprocessing in __metadata__."""
    state = model.state_dict()
    tensors = {p: state[s].to(torch.float32) for s, p in PARALENS_NAMES.items()}
    metadata = {'format': 'paralens', 'spec': SPEC, 'input_shape': json.dumps(INPUT_SHAPE, separators=(',', ':')),
                'paralens_version': PARALENS_VERSION, 'training': json.dumps(settings)}
    if preprocessing is not None:
        metadata['preprocessing'] = json.dumps(preprocessing)
    write_safetensors(path, tensors, metadata)
