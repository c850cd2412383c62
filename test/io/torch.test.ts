import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { saveModel } from '../../src/io/node.js';
import { parseSpec, Rng, Tensor } from '../../src/index.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

/**
 * PyTorch as a peer: a paralens model file loads into torch.nn.Sequential with
 * load_state_dict unchanged — paralens names parameters `i.weight` / `i.bias` by position
 * in the composite, as Sequential does — and gives the same outputs.
 */

const SCRIPT = `
import json, struct, sys, torch
from torch import nn
raw = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', raw[:8])
header = json.loads(raw[8:8 + n])
header.pop('__metadata__')
state = {}
for name, e in header.items():
    b, end = e['data_offsets']
    vals = struct.unpack('<%df' % ((end - b) // 4), raw[8 + n + b:8 + n + end])
    state[name] = torch.tensor(vals, dtype=torch.float32).reshape(e['shape'])
net = nn.Sequential(nn.Conv2d(1, 3, 3, 1, 1), nn.Tanh(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(48, 4), nn.GELU(approximate='tanh'))
net.load_state_dict(state)
x = torch.tensor(json.loads(sys.stdin.read()), dtype=torch.float32).reshape(-1, 1, 8, 8)
print(json.dumps(net(x).detach().reshape(-1).tolist()))
`;

const dir = mkdtempSync(join(tmpdir(), 'paralens-torch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWith(pytorch(), 'model files read by PyTorch', () => {
  it('load_state_dict accepts the tensors and the outputs agree', async () => {
    const m = parseSpec('conv2d(1,3,3,1,1) >> tanh >> maxpool2d(2) >> flatten >> dense(48,4) >> gelu').at([1, 8, 8]);
    const theta = m.init(4);
    const path = join(dir, 'conv.safetensors');
    await saveModel(path, m, theta);
    const rng = new Rng(9);
    const x = Tensor.zeros([5, 1, 8, 8]);
    for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
    const r = spawnSync(PYTHON, ['-c', SCRIPT, path], { input: JSON.stringify(Array.from(x.data)), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const theirs = JSON.parse(r.stdout) as number[];
    const ours = m.run(theta, x).data;
    expect(theirs).toHaveLength(ours.length);
    const d = Math.max(...theirs.map((v, i) => Math.abs(v - ours[i]!)));
    expect(d).toBeLessThanOrEqual(1e-5);
  });
});
