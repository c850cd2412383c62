import { attentionCausal, relativeBias, relativeBuckets, parsePosition, rotates } from '../../nn/attention-position.js';
import { ropeFrequencies, rotaryTable } from '../../symmetry/group/rotary.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { ExportError } from '../errors.js';
import { makeCtx } from '../../para/para.js';
import type { Reparam } from '../../para/structure.js';
import { named, under } from './torch-module.js';
import type { TorchBuffer, TorchModule, TorchRuleSet } from './torch-module.js';

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

/**
 * The sequence layers of src/nn (embedding, layernorm, rmsnorm, attention, transformer,
 * tied) on [T, d] per sample. What position fixes is a buffer — RoPE's cos/sin table, the
 * relative-distance bucket of every (query, key) pair — and what is learned keeps its
 * paralens name (wq, wk, wv, wo, distance_bias, position). The exported module is for the
 * context T the model was fixed to, as the paralens morphism is.
 * Their Python classes are in python/layers.py.
 */
export const sequenceRules: TorchRuleSet = {
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
