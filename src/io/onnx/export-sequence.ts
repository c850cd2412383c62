import { ropeFrequencies } from '../../symmetry/group/rotary.js';
import { parsePosition, relativeBias, relativeBuckets } from '../../nn/attention-position.js';
import { NORM_EPS } from '../../nn/norm-lens.js';
import { makeCtx } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { Defined } from '../../para/definition.js';
import { Reparam } from '../../para/structure.js';
import { ExportError } from '../errors.js';
import { layerNormParts } from './export-ops.js';
import type { NamedParam, OnnxGraph, Value } from './graph-proto.js';
import type { OnnxRule } from './rule.js';

/**
 * ONNX rules for the sequence layers: embedding as Cast + Gather, layernorm as
 * LayerNormalization (written out before opset 17), rmsnorm written out, attention written out — projections (MatMul with
 * the transposed weights), heads by Reshape and Transpose to [B, H, T, dh], RoPE as
 * x ⊙ C + (x·R) ⊙ S with constant cos/sin tables and the pair-swapping matrix R, the relative
 * bias as a Gather of κ by the constant bucket matrix, the causal mask as −∞ added above the
 * diagonal, Softmax, MatMul with the values — the named composites (transformer) as their
 * expansion, and tied(f) as f reading the shared tensor twice. Positions are those of the
 * exported domain, 0 … T−1.
 */

const INT64 = 7;

function name(v: Value, m: Para): string {
  if (v.name === null) throw new ExportError(`cannot export layer '${m}' to ONNX: its input is empty`);
  return v.name;
}

/** A float32 constant initializer. */
function constant(g: OnnxGraph, hint: string, data: ArrayLike<number>, shape: number[]): string {
  return g.constant(hint, data, shape);
}

/** x·Wᵀ for a weight W [out, in] stored as PyTorch lays it out. */
function linear(g: OnnxGraph, x: string, w: NamedParam): string {
  const [wt] = g.node('Transpose', [g.weight(w)], { perm: { ints: [1, 0] } });
  return g.node('MatMul', [x, wt!])[0]!;
}

const embedding: OnnxRule = ({ m, theta, x, g }) => {
  const [ids] = g.node('Cast', [name(x, m)], { to: { i: INT64 } });
  const [y] = g.node('Gather', [g.weight(theta[0]!), ids!], { axis: { i: 0 } });
  return { name: y!, shape: m.cod! };
};

const layernorm: OnnxRule = ({ m, theta, x, g }) => {
  const [xn, gain, bias] = [name(x, m), g.weight(theta[0]!), g.weight(theta[1]!)];
  const y =
    g.opset >= 17 ? g.one('LayerNormalization', [xn, gain, bias], { axis: { i: -1 }, epsilon: { f: NORM_EPS } }) : layerNormParts(g, xn, gain, bias, NORM_EPS);
  return { name: y, shape: x.shape };
};

const rmsnorm: OnnxRule = ({ m, theta, x, g }) => {
  const xn = name(x, m);
  const [sq] = g.node('Mul', [xn, xn]);
  const [ms] =
    g.opset >= 18
      ? g.node('ReduceMean', [sq!, g.int64('axes', [-1])], { keepdims: { i: 1 } })
      : g.node('ReduceMean', [sq!], { axes: { ints: [-1] }, keepdims: { i: 1 } });
  const [root] = g.node('Sqrt', [g.node('Add', [ms!, constant(g, 'eps', [NORM_EPS], [1])])[0]!]);
  const [y] = g.node('Mul', [g.node('Div', [xn, root!])[0]!, g.weight(theta[0]!)]);
  return { name: y!, shape: x.shape };
};

/** RoPE on [B, H, T, dh]: x ⊙ C + (x·R) ⊙ S, C and S the cos and sin of t·ω_i repeated over each pair. */
function rope(g: OnnxGraph, x: string, T: number, dh: number): string {
  const omega = ropeFrequencies(dh);
  const C = new Float64Array(T * dh),
    S = new Float64Array(T * dh),
    R = new Float64Array(dh * dh);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < dh / 2; i++) {
      C[t * dh + 2 * i] = C[t * dh + 2 * i + 1] = Math.cos(t * omega[i]!);
      S[t * dh + 2 * i] = S[t * dh + 2 * i + 1] = Math.sin(t * omega[i]!);
    }
  }
  // (x·R)[2i] = −x[2i+1], (x·R)[2i+1] = x[2i]
  for (let i = 0; i < dh / 2; i++) {
    R[(2 * i + 1) * dh + 2 * i] = -1;
    R[2 * i * dh + 2 * i + 1] = 1;
  }
  const [xc] = g.node('Mul', [x, constant(g, 'rope_cos', C, [T, dh])]);
  const [xr] = g.node('MatMul', [x, constant(g, 'rope_swap', R, [dh, dh])]);
  const [xs] = g.node('Mul', [xr!, constant(g, 'rope_sin', S, [T, dh])]);
  return g.node('Add', [xc!, xs!])[0]!;
}

const attention: OnnxRule = ({ m, theta, x, g }) => {
  const [d, H, posText] = m.args as [number, number, string];
  const causal = m.args[3] !== 'none';
  const T = m.dom![0]!,
    dh = d / H;
  const pos = parsePosition(posText, String(m));
  let xq = name(x, m);
  if (pos.kind === 'absolute') {
    const [table] = g.node('Slice', [g.weight(theta[4]!), g.int64('starts', [0]), g.int64('ends', [T]), g.int64('axes', [0])]);
    xq = g.node('Add', [xq, table!])[0]!;
  }
  const heads = (v: string): string => g.node('Transpose', [g.node('Reshape', [v, g.int64('shape', [0, T, H, dh])])[0]!], { perm: { ints: [0, 2, 1, 3] } })[0]!;
  let q = heads(linear(g, xq, theta[0]!)),
    k = heads(linear(g, xq, theta[1]!));
  const v = heads(linear(g, name(x, m), theta[2]!));
  if (pos.kind === 'rope') {
    q = rope(g, q, T, dh);
    k = rope(g, k, T, dh);
  }
  const [kt] = g.node('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } });
  let s = g.node('Mul', [g.node('MatMul', [q, kt!])[0]!, constant(g, 'scale', [1 / Math.sqrt(dh)], [1])])[0]!;
  if (pos.kind === 'relative') {
    const K = pos.maxDistance,
      nb = relativeBuckets(K, causal);
    const buckets = new Float64Array(T * T);
    relativeBias(
      Float64Array.from({ length: nb }, (_, i) => i),
      1,
      T,
      T,
      0,
      K,
      causal,
      buckets,
    );
    const [bias] = g.node('Gather', [g.weight(theta[4]!), g.int64('buckets_' + T, Array.from(buckets))], { axis: { i: 1 } });
    // Gather on a flat index list gives [H, T·T]: back to [H, T, T]
    s = g.node('Add', [s, g.node('Reshape', [bias!, g.int64('shape', [H, T, T])])[0]!])[0]!;
  }
  if (causal)
    s = g.node('Add', [
      s,
      constant(
        g,
        'causal_mask',
        Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -Infinity : 0)),
        [T, T],
      ),
    ])[0]!;
  const [a] = g.node('Softmax', [s], { axis: { i: -1 } });
  const [o] = g.node('Transpose', [g.node('MatMul', [a!, v])[0]!], { perm: { ints: [0, 2, 1, 3] } });
  const [merged] = g.node('Reshape', [o!, g.int64('shape', [0, T, d])]);
  return { name: linear(g, merged!, theta[3]!), shape: x.shape };
};

/** A named composite (transformer): its expansion. */
const definition: OnnxRule = ({ m, theta, x, emit }) => {
  if (!(m instanceof Defined)) throw new ExportError(`cannot export '${m}' to ONNX: it is not a named composite`);
  return emit(m.body, theta, x);
};

/** tied(f) and reparam(f, r): f with the parameters r computes (the shared one of tied(f), read twice, one initializer). */
const tiedRule: OnnxRule = ({ m, theta, x, g, emit }) => {
  if (!(m instanceof Reparam)) throw new ExportError(`cannot export '${m}' to ONNX: it is not a reparametrisation`);
  const { p } = m.r.map(
    theta.map((t) => t.tensor),
    makeCtx(),
  );
  // a tensor of θ passed through keeps its name (a tied weight, read twice, is one initializer); a computed one gets a fresh name
  const named = p.map((t, i) => theta.find((q) => q.tensor === t) ?? { name: g.fresh(`${m.f.params[i]!.name}`), tensor: t });
  return emit(m.f, named, x);
};

/** The rules of this file by layer kind (part of ONNX_RULES, src/io/onnx/export-rules.ts). */
export const sequenceRules: Readonly<Record<string, OnnxRule>> = {
  embedding,
  layernorm,
  rmsnorm,
  attention,
  transformer: definition,
  tied: tiedRule,
  reparam: tiedRule,
};
