import { attentionCausal, relativeBias, relativeBuckets, parsePosition, rotates } from '../../nn/attention-position.js';
import { ropeFrequencies, rotaryTable } from '../../symmetry/group/rotary.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { ExportError } from '../errors.js';
import { makeCtx } from '../../para/para.js';
import type { Reparam } from '../../para/structure.js';
import { named, under } from './torch-module.js';
import type { TorchBuffer, TorchModule, TorchRuleSet } from './torch-module.js';

/**
 * The sequence layers of src/nn (embedding, layernorm, rmsnorm, attention, transformer,
 * tied) on [T, d] per sample. What position fixes is a buffer — RoPE's cos/sin table, the
 * relative-distance bucket of every (query, key) pair — and what is learned keeps its
 * paralens name (wq, wk, wv, wo, distance_bias, position). The exported module is for the
 * context T the model was fixed to, as the paralens morphism is.
 */
const HELPERS: Record<string, string> = {
  Embedding: `class Embedding(nn.Module):
    """embedding(V,d): token ids (as floats, like paralens's) → rows of a learned table [V, d]."""
    def __init__(self, v, d):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(v, d))

    def forward(self, x):
        return F.embedding(x.long(), self.weight)`,
  RMSNorm: `class RMSNorm(nn.Module):
    """rmsnorm(d): gain ⊙ x/√(mean(x²) + 1e-5) over the last axis."""
    def __init__(self, d):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.gain * x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5)`,
  Attention: `class Attention(nn.Module):
    """attention(d,heads,pos[,mask]): multi-head self-attention on [T, d]; softmax(Q_h·K_hᵀ/√dh + bias_h) with queries seeing keys j ≤ i when causal."""
    def __init__(self, d, heads, t, causal, kind, extra=None, rotary=False):
        super().__init__()
        self.heads, self.causal, self.kind, self.rotary = heads, causal, kind, rotary or kind == 'rope'
        for name in ('wq', 'wk', 'wv', 'wo'):
            setattr(self, name, nn.Parameter(torch.zeros(d, d)))
        if kind == 'relative':
            self.distance_bias = nn.Parameter(torch.zeros(*extra))
            self.register_buffer('buckets', torch.zeros(t, t))
        elif kind == 'derived':  # a declared geometry: one coefficient per head and orbit of pairs
            self.kernel = nn.Parameter(torch.zeros(*extra))
            self.register_buffer('buckets', torch.zeros(t, t))
        elif kind == 'absolute':
            self.position = nn.Parameter(torch.zeros(*extra))
        if self.rotary:
            self.register_buffer('cos', torch.zeros(t, d // heads // 2))
            self.register_buffer('sin', torch.zeros(t, d // heads // 2))

    def rope(self, x):
        a, b = x[..., 0::2], x[..., 1::2]
        return torch.stack([a * self.cos - b * self.sin, a * self.sin + b * self.cos], dim=-1).flatten(-2)

    def forward(self, x):
        b, t, d = x.shape
        h, dh = self.heads, d // self.heads
        xq = x + self.position[:t] if self.kind == 'absolute' else x
        split = lambda z: z.reshape(b, t, h, dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(xq @ self.wq.T), split(xq @ self.wk.T), split(x @ self.wv.T)
        if self.rotary:
            q, k = self.rope(q), self.rope(k)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)
        if self.kind == 'relative':
            s = s + self.distance_bias[:, self.buckets.long()]
        if self.kind == 'derived':
            s = s + self.kernel[:, self.buckets.long()]
        if self.causal:
            s = s.masked_fill(torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1), float('-inf'))
        return (torch.softmax(s, dim=-1) @ v).transpose(1, 2).reshape(b, t, d) @ self.wo.T`,
  Tied: `class Tied(nn.Module):
    """tied(f): f with its embedding's table and its head's weight one Parameter (the gradients add)."""
    def __init__(self, f, source, target):
        super().__init__()
        self.f = f
        *path, name = target.split('.')
        setattr(self.f.get_submodule('.'.join(path)), name, self.f.get_parameter(source))

    def forward(self, x):
        return self.f(x)`,
};

/** The buffers and the extra parameter's shape of attention at its context T. */
function attentionParts(m: Para): { code: string; buffers: TorchBuffer[] } {
  const [d, heads, pos, mask] = m.args as [number, number, string, string | undefined];
  if (typeof d !== 'number') throw new ExportError(`cannot export '${m}' to PyTorch: attention on a point cloud has no rule`);
  const T = m.dom![0]!;
  const p = parsePosition(pos, String(m));
  const causal = attentionCausal(p, mask);
  const buffers: TorchBuffer[] = [];
  let extra = 'None';
  if (p.kind === 'relative') {
    const nb = relativeBuckets(p.maxDistance, causal);
    // relativeBias of the table κ[0, k] = k is each pair's bucket: one definition of the buckets
    const buckets = new Float32Array(T * T);
    relativeBias(
      Float32Array.from({ length: nb }, (_, k) => k),
      1,
      T,
      T,
      0,
      p.maxDistance,
      causal,
      buckets,
    );
    buffers.push({ name: 'buckets', tensor: new Tensor(buckets, [T, T]) });
    extra = `(${heads}, ${nb})`;
  } else if (p.kind === 'derived') {
    // each pair's orbit (hidden pairs read orbit 0; the mask drops them)
    const N = p.kernels.points;
    const orbits = Float32Array.from({ length: T * T }, (_, x) => Math.max(0, p.kernels.label[Math.floor(x / T) * N + (x % T)]!));
    buffers.push({ name: 'buckets', tensor: new Tensor(orbits, [T, T]) });
    extra = `(${heads}, ${p.kernels.dimension})`;
  } else if (p.kind === 'absolute') {
    extra = `(${p.tmax}, ${d})`;
  }
  if (rotates(p)) {
    const table = rotaryTable(T, ropeFrequencies(d / heads));
    buffers.push(
      { name: 'cos', tensor: new Tensor(Float32Array.from(table.cos), [T, table.half]) },
      { name: 'sin', tensor: new Tensor(Float32Array.from(table.sin), [T, table.half]) },
    );
  }
  const rotary = p.kind === 'derived' && rotates(p) ? ', rotary=True' : '';
  return { code: `Attention(${d}, ${heads}, ${T}, ${causal ? 'True' : 'False'}, '${p.kind}', ${extra}${rotary})`, buffers };
}

export const sequenceRules: TorchRuleSet = {
  helpers: HELPERS,
  rules: {
    embedding: ({ m }) => named(m, `Embedding(${m.args[0]}, ${m.args[1]})`, ['Embedding']),
    /** nn.LayerNorm's weight is paralens's gain. */
    layernorm: ({ m }) => ({ code: `nn.LayerNorm(${m.args[0]}, eps=1e-5)`, params: ['weight', 'bias'], buffers: [], helpers: [] }),
    rmsnorm: ({ m }) => named(m, `RMSNorm(${m.args[0]})`, ['RMSNorm']),
    attention: ({ m }) => {
      const { code, buffers } = attentionParts(m);
      return named(m, code, ['Attention'], buffers);
    },
    /** transformer(…) is its expansion (src/para/definition.ts): the same parameters, the same names. */
    transformer: ({ m, emit }) => emit(m.children[0]!),
    tied: ({ m, emit }) => tiedModule(m, emit(m.children[0]!)),
  },
};
/**
 * tied(f): f's module, with every parameter of f that reads the shared tensor made one
 * Parameter in PyTorch. Which ones share is read off the reparametrisation itself: mapping
 * distinct marker tensors q through it, the parameter p_i that comes back as q_k reads q_k.
 */
function tiedModule(m: Para, f: TorchModule): TorchModule {
  const r = (m as Reparam).r;
  const q = m.params.map((p) => Tensor.zeros(p.shape));
  const source = r.map(q, makeCtx()).p.map((t) => q.indexOf(t));
  if (source.some((k) => k < 0)) throw new ExportError(`cannot export ${m} to PyTorch: its parameters are not a selection of f's`);
  // m.params[k] is f's first parameter that reads q_k; the later ones are aliases of it
  const first = m.params.map((_, k) => source.indexOf(k));
  const ties = source.map((k, i) => ({ i, k })).filter(({ i, k }) => first[k] !== i);
  if (ties.length !== 1) throw new ExportError(`cannot export ${m} to PyTorch: expected one tied pair, found ${ties.length}`);
  const inner = under('f', f);
  const [{ i, k }] = ties as [{ i: number; k: number }];
  return {
    code: `Tied(${f.code}, ${JSON.stringify(f.params[first[k]!])}, ${JSON.stringify(f.params[i])})`,
    params: first.map((j) => inner.params[j]!),
    buffers: inner.buffers,
    aliases: [...inner.aliases, { name: inner.params[i]!, of: inner.params[first[k]!]! }],
    helpers: ['Tied', ...f.helpers],
  };
}
