#!/usr/bin/env python3
"""Continue training the exported paralens model in PyTorch (written by paralens $version).

    python3 train.py                                  # one process, the settings of the paralens run
    python3 train.py --processes 2 --epochs 3         # DistributedDataParallel, 2 workers started here
    RANK=0 WORLD_SIZE=8 MASTER_ADDR=host MASTER_PORT=29500 python3 train.py --launcher env
                                                      # one of the processes a cluster launcher starts

Workers started here meet at tcp://127.0.0.1:PORT (torch.multiprocessing.spawn; Debian's
torchrun fails under Python 3.11); --launcher env reads RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT instead (torchrun, srun, mpirun wrappers). gloo on CPUs, NCCL where GPUs exist.
The result is a paralens model file, trained.safetensors by default:
    paralens predict --load trained.safetensors ...
"""
import argparse
import gzip
import json
import math
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model as exported  # noqa: E402  (model.py beside this file)

# the training settings recorded in the paralens model file
SETTINGS = {}
# where the training data comes from
DATA = {"kind": "none"}
# how the recorded data's values become the model's inputs (the model file's preprocessing), carried into trained.safetensors
PREPROCESSING = None

# losses as in src/nn/loss.ts: (summed loss of some rows, what the mean divides by: every element or every row)
LOSSES = {
    'mse': (lambda z, y: ((z - y) ** 2).sum(), 'elements'),
    'bce': (lambda z, y: F.binary_cross_entropy_with_logits(z, y, reduction='sum'), 'elements'),
    'softmax-cross-entropy': (lambda z, y: -(y * F.log_softmax(z.reshape(len(z), -1), dim=-1).reshape(z.shape)).sum(), 'rows'),
    'token-cross-entropy': (lambda z, y: F.cross_entropy(z.reshape(-1, z.shape[-1]), y.reshape(-1).long(), reduction='sum'), 'elements'),
}

# paralens's optimisers and their defaults (momentum 0.9, Adam's betas and eps, AdamW's weight decay 0.01)
OPTIMIZERS = {
    'sgd': lambda ps, lr: torch.optim.SGD(ps, lr=lr),
    'momentum': lambda ps, lr: torch.optim.SGD(ps, lr=lr, momentum=0.9),
    'nesterov': lambda ps, lr: torch.optim.SGD(ps, lr=lr, momentum=0.9, nesterov=True),
    'adam': lambda ps, lr: torch.optim.Adam(ps, lr=lr, betas=(0.9, 0.999), eps=1e-8),
    'adamw': lambda ps, lr: torch.optim.AdamW(ps, lr=lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01),
}


def schedule(text):
    """The learning rate at step t from the base rate, as src/optim/schedule.ts: constant, step:EVERY:GAMMA, cosine:TOTAL[:MIN], warmup:STEPS."""
    name, *a = text.split(':')
    a = [float(v) for v in a]
    if name == 'constant' and not a:
        return lambda t, base: base
    if name == 'step' and len(a) == 2:
        return lambda t, base: base * a[1] ** (t // a[0])
    if name == 'cosine' and len(a) in (1, 2):
        low = a[1] if len(a) == 2 else 0.0
        return lambda t, base: low if t >= a[0] else low + 0.5 * (base - low) * (1 + math.cos(math.pi * t / a[0]))
    if name == 'warmup' and len(a) == 1:
        return lambda t, base: base * (t + 1) / a[0] if t < a[0] else base
    raise SystemExit(f'train.py: --schedule {text!r}: expected constant, step:EVERY:GAMMA, cosine:TOTAL[:MIN] or warmup:STEPS')


def arguments():
    p = argparse.ArgumentParser(description='Continue training the exported paralens model in PyTorch.')
    recorded = SETTINGS.get('optimizer', 'sgd')
    p.add_argument('--processes', type=int, default=1, help='worker processes started here (default 1)')
    p.add_argument('--epochs', type=int, default=SETTINGS.get('epochs') or 1, help='epochs to train (default: as many as the paralens run)')
    p.add_argument('--steps', type=int, default=SETTINGS.get('steps') or 100, help='text data: optimiser steps (default: as many as the paralens run)')
    p.add_argument('--context', type=int, default=SETTINGS.get('context'), help='text data: characters per window (the context the model was fixed to)')
    p.add_argument('--batch', type=int, default=SETTINGS.get('batch') or 0, help='global minibatch size, split across processes (0 = the whole set)')
    p.add_argument('--lr', type=float, default=SETTINGS.get('lr', 0.1))
    p.add_argument('--optimizer', choices=sorted(OPTIMIZERS), default=recorded if recorded in OPTIMIZERS else None)
    p.add_argument('--loss', choices=sorted(LOSSES), default=SETTINGS.get('loss'))
    p.add_argument('--schedule', default=SETTINGS.get('schedule', 'constant'), help='constant, step:EVERY:GAMMA, cosine:TOTAL[:MIN], warmup:STEPS')
    p.add_argument('--seed', type=int, default=SETTINGS.get('seed', 0), help='row order and the stochastic layers\' noise')
    p.add_argument('--weights', default=os.path.join(HERE, 'weights.safetensors'), help='initial weights (default: the exported ones)')
    p.add_argument('--data', help='a .safetensors file with x_train, y_train (and x_test, y_test) instead of the recorded data')
    p.add_argument('--out', default=os.path.join(HERE, 'trained.safetensors'), help='where to write the paralens model file')
    p.add_argument('--launcher', choices=['spawn', 'env'], default='spawn', help='spawn: start --processes workers here; env: this is one process of a launcher (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)')
    p.add_argument('--port', type=int, default=0, help='loopback port the spawned workers meet at (default: a free one)')
    p.add_argument('--backend', choices=['auto', 'gloo', 'nccl'], default='auto', help='auto: NCCL when CUDA is available, else gloo')
    p.add_argument('--json', action='store_true', help='print the result as one JSON object')
    args = p.parse_args()
    if args.optimizer is None:
        p.error(f"the paralens run used the optimiser {recorded!r}, which has no PyTorch counterpart here; choose --optimizer")
    if args.loss is None:
        p.error('the model file records no loss; choose --loss')
    if args.processes < 1 or args.epochs < 1 or args.steps < 1 or args.batch < 0:
        p.error('--processes, --epochs and --steps must be ≥ 1 and --batch ≥ 0')
    if DATA['kind'] == 'text' and args.data is None and not (args.context and args.batch):
        p.error('text data needs --context and --batch (windows per step)')
    if args.data is None and DATA['kind'] == 'none':
        p.error('the model file records no training data; give --data FILE.safetensors (x_train, y_train)')
    schedule(args.schedule)
    return args


def read_idx(path):
    """An IDX array (LeCun's format; gzip or not) as a tensor."""
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        raw = f.read()
    rank = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], 'big') for i in range(rank)]
    if raw[2] != 0x08:
        raise SystemExit(f'{path}: only unsigned-byte IDX files are read here')
    return torch.frombuffer(bytearray(raw[4 + 4 * rank:]), dtype=torch.uint8).reshape(dims)


def model_inputs(x):
    """Raw values [N, d] as the model's inputs, as the paralens preprocessing maps them (src/data/preprocessing.ts): x·scale, then (x − mean)/std when standardised."""
    p = PREPROCESSING or {'scale': 1 / 255, 'standardize': False}
    x = x * p['scale']
    if p.get('standardize'):
        x = (x - torch.tensor(p['mean'], dtype=torch.float32)) / torch.tensor(p['std'], dtype=torch.float32)
    return x


def idx_split(pair):
    """An image file and its label file of DATA's directory: the model's inputs and one-hot targets."""
    def find(name):
        for p in (os.path.join(DATA['dir'], name + '.gz'), os.path.join(DATA['dir'], name)):
            if os.path.exists(p):
                return p
        raise SystemExit(f"{os.path.join(DATA['dir'], name)}(.gz) not found")
    images = read_idx(find(pair[0])).to(torch.float32)
    labels = read_idx(find(pair[1])).long()
    x = model_inputs(images.reshape(len(images), -1))
    x = x.reshape(len(images), 1, *images.shape[1:]) if DATA['layout'] == 'image' else x
    return x, F.one_hot(labels, DATA['classes']).to(torch.float32)


def load_data(path):
    """(x_train, y_train, x_test, y_test), the test pair None when there is none."""
    if path is None and DATA['kind'] == 'idx':
        return (*idx_split(DATA['train']), *(idx_split(DATA['test']) if DATA.get('test') else (None, None)))
    tensors, _ = exported.read_safetensors(path or os.path.join(HERE, DATA['path']))
    f32 = lambda name: tensors[name].to(torch.float32) if name in tensors else None  # noqa: E731
    return f32('x_train'), f32('y_train'), f32('x_test'), f32('y_test')


def is_classification(y):
    return bool(((y == 0) | (y == 1)).all()) and (y.shape[1] == 1 or bool((y.sum(1) == 1).all()))


def accuracy(z, y, logits):
    """As src/train/metrics.ts: argmax for several outputs; for one, the threshold 0 on logits, 0.5 on probabilities."""
    if y.shape[1] == 1:
        return float(((z.reshape(-1) > (0 if logits else 0.5)) == (y.reshape(-1) > 0.5)).float().mean())
    return float((z.argmax(1) == y.argmax(1)).float().mean())


def evaluate(net, x, y, args, device):
    """Mean loss (and accuracy for classification) over a whole set, in evaluation mode."""
    loss_sum, per = LOSSES[args.loss]
    net.eval()
    with torch.no_grad():
        z = torch.cat([net(x[i:i + 4096].to(device)).cpu() for i in range(0, len(x), 4096)])
    denom = len(x) * (y[0].numel() if per == 'elements' else 1)
    out = {'loss': float(loss_sum(z, y)) / denom}
    if is_classification(y):
        out['accuracy'] = accuracy(z, y, args.loss != 'mse')
    return out


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def worker(rank, world, args, init_method):
    """One process: its share of every global minibatch, gradients averaged across the processes by DDP."""
    backend = ('nccl' if torch.cuda.is_available() else 'gloo') if args.backend == 'auto' else args.backend
    device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', rank)) % max(1, torch.cuda.device_count())}") if backend == 'nccl' else torch.device('cpu')
    if device.type == 'cpu':
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    if world > 1:
        dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world)
    torch.manual_seed(args.seed * 1000 + rank)  # the stochastic layers' noise: one stream per process
    net = exported.load(args.weights).to(device)
    run = Run(rank, world, args, device, net, DistributedDataParallel(net) if world > 1 else net)
    t0 = time.time()
    result, settings = (train_text if DATA['kind'] == 'text' and args.data is None else train_rows)(run)
    if rank == 0:
        finish(run, backend, time.time() - t0, result, settings)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
        # PyTorch 1.13 can deadlock in the interpreter's teardown, when the DDP reducer's last
        # reference to the gloo process group is dropped while a gloo thread waits for the GIL
        # (seen here: the result written, the worker spinning for minutes). Everything is
        # written and flushed by now, so a worker ends without that teardown.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


class Run:
    """What every training loop needs: where it runs, the module, its DDP wrapper, the optimiser and the schedule."""
    def __init__(self, rank, world, args, device, net, model):
        self.rank, self.world, self.args, self.device, self.net, self.model = rank, world, args, device, net, model
        self.optimizer = OPTIMIZERS[args.optimizer](model.parameters(), args.lr)
        self.lr_at = schedule(args.schedule)
        self.step = 0

    def take(self, x, y, rows, per_row):
        """One step on this process's rows of a global batch of so many rows; returns the global batch's mean loss share."""
        loss_sum, _ = LOSSES[self.args.loss]
        # this process's part of the global batch's mean loss; DDP averages the gradients over
        # the processes, so the factor world makes the step that of the whole global batch
        loss = loss_sum(self.model(x.to(self.device)), y.to(self.device)) / (rows * per_row)
        self.optimizer.zero_grad()
        (loss * self.world).backward()
        for group in self.optimizer.param_groups:
            group['lr'] = self.lr_at(self.step, self.args.lr)
        self.optimizer.step()
        self.step += 1
        return loss.detach().cpu().double()

    def total(self, t):
        """A per-process sum, summed over the processes."""
        if self.world > 1:
            dist.all_reduce(t)
        return t

    def log(self, text):
        if self.rank == 0:
            print(text, file=sys.stderr, flush=True)


def train_rows(run):
    """Epochs over the rows, in the order of one seeded permutation per epoch (the same on every process)."""
    args = run.args
    x, y, x_test, y_test = load_data(args.data)
    n = len(x)
    batch = min(args.batch or n, n)
    per_row = y[0].numel() if LOSSES[args.loss][1] == 'elements' else 1
    order = torch.Generator().manual_seed(args.seed)
    history, t0 = [], time.time()
    for epoch in range(args.epochs):
        run.model.train()
        perm = torch.randperm(n, generator=order)
        epoch_loss = torch.zeros(1, dtype=torch.float64)
        for start in range(0, n, batch):
            rows = perm[start:start + batch]
            mine = rows[run.rank::run.world]
            epoch_loss += run.take(x[mine], y[mine], len(rows), per_row) * len(rows)
        history.append(float(run.total(epoch_loss)) / n)
        run.log(f'epoch {epoch + 1}/{args.epochs}  loss {history[-1]:.6g}  ({time.time() - t0:.1f} s)')
    if run.rank != 0:
        return None, None
    train_eval = evaluate(run.net, x, y, args, run.device)
    test_eval = evaluate(run.net, x_test, y_test, args, run.device) if x_test is not None else {}
    result = {'epochs': args.epochs, 'epoch_losses': history, 'final_loss': train_eval['loss'], 'accuracy': train_eval.get('accuracy'),
              'test_loss': test_eval.get('loss'), 'test_accuracy': test_eval.get('accuracy')}
    settings = {'epochs': (SETTINGS.get('epochs') or 0) + args.epochs, 'final_loss': train_eval['loss'],
                'accuracy': train_eval.get('accuracy'), 'test_accuracy': test_eval.get('accuracy')}
    return result, settings


def finish(run, backend, seconds, result, settings_update):
    """Writes the trained model back as a paralens model file and prints the result."""
    args, world = run.args, run.world
    settings = dict(SETTINGS)
    settings.update({'loss': args.loss, 'optimizer': args.optimizer, 'lr': args.lr, 'batch': args.batch, 'seed': args.seed, **settings_update})
    settings['continued'] = {'in': 'pytorch', 'torch': torch.__version__, 'processes': world, 'backend': backend, 'schedule': args.schedule,
                             **({'steps': result['steps'], 'from_steps': SETTINGS.get('steps') or 0} if 'steps' in result
                                else {'epochs': args.epochs, 'from_epochs': SETTINGS.get('epochs') or 0})}
    settings = {k: v for k, v in settings.items() if v is not None}
    # the preprocessing holds for the recorded data only: rows given by --data were prepared by whoever wrote them
    carried = PREPROCESSING if args.data is None else None
    if PREPROCESSING is not None and args.data is not None:
        print(f'warning: trained on {args.data}, not the recorded data: {args.out} records no preprocessing, so paralens predict '
              'reads model inputs as they are', file=sys.stderr)
    exported.save_paralens(run.net.cpu(), args.out, settings, carried)
    result = {'out': args.out, 'processes': world, 'backend': backend, 'seconds': seconds, **result}
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            if v is not None and not isinstance(v, list):
                print(f'{k:<18}{v:.6g}' if isinstance(v, float) else f'{k:<18}{v}')


def evaluation_windows(n, t):
    """Windows of t covering every prediction of ids[1…n−1]: at 0, t, 2t, …, and one aligned to the end whose positions from `new` on are new."""
    predictions, out, s = n - 1, [], 0
    while s + t <= predictions:
        out.append((s, 0))
        s += t
    if s < predictions:
        out.append((predictions - t, t - (predictions - s)))
    return out


def bits_per_char(net, ids, t, device):
    """Mean cross-entropy in bits per character of a text, every character predicted from the ones before it in its window."""
    net.eval()
    nats, count = 0.0, 0
    windows = evaluation_windows(len(ids), t)
    with torch.no_grad():
        for i in range(0, len(windows), 32):
            part = windows[i:i + 32]
            idx = torch.tensor([s for s, _ in part])[:, None] + torch.arange(t)
            logp = torch.log_softmax(net(ids[idx].float().to(device)).double(), dim=-1).cpu()
            picked = logp.gather(-1, ids[idx + 1][..., None])[..., 0]
            for b, (_, new) in enumerate(part):
                nats -= float(picked[b, new:].sum())
                count += t - new
    return nats / count / math.log(2)


def train_text(run):
    """--steps steps of --batch windows of --context characters; bits per character as paralens reports them."""
    args = run.args
    tensors, _ = exported.read_safetensors(os.path.join(HERE, DATA['path']))
    train, val = tensors['text_train'].long(), tensors['text_val'].long()
    t, b = args.context, args.batch
    order = torch.Generator().manual_seed(args.seed)
    tail, tail_bits, t0 = max(1, math.ceil(args.steps / 10)), 0.0, time.time()
    for step in range(args.steps):
        run.model.train()
        starts = torch.randint(0, len(train) - t, (b,), generator=order)
        idx = (starts[:, None] + torch.arange(t))[run.rank::run.world]
        bits = float(run.total(run.take(train[idx].float(), train[idx + 1], b, t).reshape(1))) / math.log(2)
        if step >= args.steps - tail:
            tail_bits += bits
        if (step + 1) % max(1, args.steps // 10) == 0:
            run.log(f'step {step + 1}/{args.steps}  bits/char {bits:.4f}  ({time.time() - t0:.1f} s)')
    if run.rank != 0:
        return None, None
    val_bits = bits_per_char(run.net, val, t, run.device)
    result = {'steps': args.steps, 'bits_per_char': tail_bits / tail, 'val_bits_per_char': val_bits}
    return result, {'steps': (SETTINGS.get('steps') or 0) + args.steps, 'bits_per_char': tail_bits / tail, 'val_bits_per_char': val_bits, 'context': t}


def main():
    args = arguments()
    if args.launcher == 'env':
        worker(int(os.environ['RANK']), int(os.environ['WORLD_SIZE']), args, 'env://')
    elif args.processes == 1:
        worker(0, 1, args, None)
    else:
        port = args.port or free_port()
        mp.spawn(worker, args=(args.processes, args, f'tcp://127.0.0.1:{port}'), nprocs=args.processes, join=True)


if __name__ == '__main__':
    main()
