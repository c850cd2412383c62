/**
 * Python source, part of train.py: next-character training on text data as paralens does it
 * (src/train/language-model.ts): each step takes --batch windows of --context characters at
 * seeded random starts — the same starts on every process, each process taking its share —
 * and the validation bits per character are measured over the windows of src/data/text.ts
 * (non-overlapping, one aligned to the end), as `paralens eval` measures them.
 */
export const TEXT_PY = `def evaluation_windows(n, t):
    """Windows of t covering every prediction of ids[1…n−1]: at 0, t, 2t, …, and one aligned to the end whose positions from \`new\` on are new."""
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
    return result, {'steps': (SETTINGS.get('steps') or 0) + args.steps, 'bits_per_char': tail_bits / tail, 'val_bits_per_char': val_bits, 'context': t}`;
