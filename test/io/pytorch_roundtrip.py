"""Runs exported paralens models in PyTorch: for each case, the output, the input gradient and
the parameter gradients (under paralens names) of ⟨y, r⟩ for a cotangent r, written to a
safetensors file. argv[1] is a JSON list of {dir, inputs, out, training}."""
import importlib.util
import json
import sys

import torch

for case in json.loads(open(sys.argv[1]).read()):
    spec = importlib.util.spec_from_file_location(f"model_{abs(hash(case['dir']))}", f"{case['dir']}/model.py")
    exported = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exported)
    net = exported.load()
    tensors, _ = exported.read_safetensors(case['inputs'])
    if case['training']:
        net.train()
        draws = iter([tensors[f'noise{i}'] for i in range(sum(1 for k in tensors if k.startswith('noise')))])
        for mod in net.modules():
            if hasattr(mod, 'noise'):
                mod.noise = lambda shape, draws=draws: next(draws).reshape(shape)
    else:
        net.eval()
    x = tensors['x'].clone().requires_grad_(True)
    y = net(x)
    (y * tensors['r']).sum().backward()
    out = {'y': y.detach(), 'dx': x.grad if x.grad is not None else torch.zeros_like(x)}
    params = {p: net.get_parameter(s) for s, p in exported.PARALENS_NAMES.items()}
    out.update({p: t.grad if t.grad is not None else torch.zeros_like(t) for p, t in params.items()})
    exported.write_safetensors(case['out'], out)
