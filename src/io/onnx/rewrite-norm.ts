import { operator } from '../../ops/vocabulary.js';
import type { IrBox } from './ir.js';
import type { RewriteRule, RewriteView } from './rewrite-rule.js';

/**
 * Layer normalisation written out (PyTorch at opset 13, before LayerNormalization existed):
 *
 *   m = ReduceMean(x, −1), d = x − m, v = ReduceMean(d², −1), n = d / √(v + ε), then · γ + β
 *
 * read as one LayerNormalization box (the backend's layerNorm kernel), γ and β taken in when
 * they follow; a LayerNormalization with ε = 1e-5 then reads as layernorm(d).
 */

const opOf = (b: IrBox | undefined, name: string): b is Extract<IrBox, { kind: 'op' }> => b?.kind === 'op' && b.op.def.name === name;

/** The box writing w when it is the operator `name` and w is read only by the boxes given. */
function producerOnlyFor(v: RewriteView, w: number, name: string, readers: readonly IrBox[]): Extract<IrBox, { kind: 'op' }> | undefined {
  const p = v.producer(w);
  if (!opOf(p, name) || w === v.ir.output) return undefined;
  return v.readers(w).every((r) => readers.includes(r)) ? p : undefined;
}

const lastAxisMean = (b: IrBox, rank: number): boolean => {
  if (b.kind !== 'op') return false;
  const axes = b.op.attrs.axes as readonly number[];
  return b.op.attrs.keepdims === 1 && axes.length === 1 && (axes[0] === -1 || axes[0] === rank - 1);
};

export const matchLayerNormParts: RewriteRule = (div, v) => {
  if (!opOf(div, 'Div')) return undefined;
  const [dWire, sWire] = div.inputs as [number, number];
  const sub = v.producer(dWire);
  if (!opOf(sub, 'Sub')) return undefined;
  const [x, mWire] = sub.inputs as [number, number];
  const rank = v.ir.wires[x]!.shape.length;
  const sqrt = producerOnlyFor(v, sWire, 'Sqrt', [div]);
  if (!sqrt) return undefined;
  const add = producerOnlyFor(v, sqrt.inputs[0]!, 'Add', [sqrt]);
  if (!add) return undefined;
  const epsWire = add.inputs.find((w) => v.scalar(w) !== undefined);
  const vWire = add.inputs.find((w) => w !== epsWire);
  if (epsWire === undefined || vWire === undefined) return undefined;
  const varMean = producerOnlyFor(v, vWire, 'ReduceMean', [add]);
  if (!varMean || !lastAxisMean(varMean, rank)) return undefined;
  const sq = v.producer(varMean.inputs[0]!);
  const squares =
    (opOf(sq, 'Pow') && v.scalar(sq.inputs[1]!) === 2 && sq.inputs[0] === dWire) || (opOf(sq, 'Mul') && sq.inputs[0] === dWire && sq.inputs[1] === dWire);
  if (!squares || !v.readers(varMean.inputs[0]!).every((r) => r === varMean)) return undefined;
  const mean = producerOnlyFor(v, mWire, 'ReduceMean', [sub]);
  if (!mean || mean.inputs[0] !== x || !lastAxisMean(mean, rank)) return undefined;
  if (!v.readers(dWire).every((r) => r === div || r === sq) || dWire === v.ir.output) return undefined;
  const d = v.ir.wires[x]!.shape[rank - 1];
  // γ and β after it, when they are weights of the width d read only there
  let out = div.outputs[0]!;
  const taken: IrBox[] = [mean, sub, sq!, varMean, add, sqrt, div];
  const inputs = [x];
  const follow = (name: string): boolean => {
    const next = v.readers(out);
    const n = next.length === 1 && out !== v.ir.output ? next[0]! : undefined;
    if (!opOf(n, name)) return false;
    const w = n.inputs.find((i) => i !== out);
    const p = w === undefined ? undefined : v.producer(w);
    if (!p || p.kind !== 'param' || p.value.size !== d || !v.onlyReader(w!, n)) return false;
    inputs.push(w!);
    taken.push(n);
    out = n.outputs[0]!;
    return true;
  };
  if (!follow('Mul')) return undefined;
  follow('Add');
  const eps = v.scalar(epsWire)!;
  return {
    remove: taken,
    add: {
      kind: 'op',
      op: operator('LayerNormalization')!.make({ axis: -1, epsilon: Math.fround(eps) === Math.fround(1e-5) ? 1e-5 : eps }),
      inputs,
      outputs: [out],
      from: div.from,
    },
    what: 'LayerNormalization',
  };
};
