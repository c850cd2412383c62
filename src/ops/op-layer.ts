import { ShapeError } from '../errors.js';
import { primitive } from '../para/composite.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { BATCH, dimEquals, isBatch, printShape } from './dim.js';
import { splitTopLevel } from './op.js';
import type { Op, OpCtx } from './op.js';

/**
 * An operator of one input and one output as a layer: `Erf`, `Clip(min(0),max(6))` or
 * `Softmax(axis(1))` in a spec string, composed with `>>` like any layer. Axes count the batch
 * axis first (ONNX's and PyTorch's convention), so the operator acts on [B, …dom]; it takes
 * any domain until composed, and refuses one on which it would move the batch axis.
 */
export function opLayer(op: Op, dom?: Shape): Para {
  let cod: Shape | undefined;
  if (dom) {
    const [out] = op.shapes([[BATCH, ...dom]]);
    if (!out || !(out.length >= 1 && dimEquals(out[0]!, BATCH) && out.slice(1).every((d) => !isBatch(d))))
      throw new ShapeError(`${op} on [*,${dom.join(',')}] gives ${out ? printShape(out) : 'nothing'}: the batch axis must stay first`);
    cod = out.slice(1) as number[];
  }
  const text = String(op);
  // its arguments are the attributes as written (`Clip(max(6))`), which the catalogue reads back
  const layer = primitive({
    kind: op.def.name,
    args: text === op.def.name ? [] : splitTopLevel(text.slice(op.def.name.length + 1, -1)),
    dom,
    cod,
    // a pointwise operator on vectors acts on each position of a sequence alike
    positionwise: op.def.pointwise === true,
    at: (d) => opLayer(op, d),
    forward: (_theta, x, ctx) => {
      const opCtx: OpCtx = Object.assign(Object.create(ctx) as typeof ctx, { batch: x.batch });
      const lens = op.forward([x], opCtx);
      return {
        y: lens.ys[0]!,
        pullback: (dy, _dTheta, needDx = true) => lens.pullback([dy], [needDx])[0] ?? ctx.alloc(x.shape, x.dtype),
      };
    },
  });
  // on a device when the operator computes with kernels only (src/tensor/device-layers.ts reads this hook)
  return Object.assign(layer, { hostOnlyParts: (): string[] => (op.kernelsOnly ? [] : [String(layer)]) });
}

/** Whether an operator can be a layer: one input, one output. */
export const isLayerOp = (op: Op): boolean => op.def.inputs[0] <= 1 && op.def.inputs[1] >= 1 && (op.def.outputs?.(op.attrs) ?? 1) === 1;
