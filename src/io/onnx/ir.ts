import type { Para } from '../../para/para.js';
import type { SymShape } from '../../ops/dim.js';
import type { Op } from '../../ops/op.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { ElemType } from './schema.js';

/**
 * What import builds from an ONNX graph before it becomes a Para morphism: boxes (operators,
 * layers, parameters, constants) on numbered wires, each wire with its shape (the batch B kept
 * symbolic) and element type. The rewrites (src/io/onnx/rewrite*.ts) replace sub-diagrams of
 * operators by named layers here; src/io/onnx/structure.ts then reads the result as seq,
 * residual and graph(…). Every box remembers the ONNX nodes it came from, for messages.
 */
export interface IrWire {
  readonly shape: SymShape;
  readonly type: ElemType;
  /** The ONNX value's name (a hint for the wire's name in graph(…)). */
  readonly name: string;
}

export type IrBox =
  | { readonly kind: 'op'; readonly op: Op; readonly inputs: readonly number[]; readonly outputs: readonly number[]; readonly from: string }
  | {
      readonly kind: 'layer';
      readonly layer: Para;
      readonly theta: readonly Tensor[];
      readonly inputs: readonly [number];
      readonly outputs: readonly [number];
      readonly from: string;
    }
  | { readonly kind: 'param'; readonly value: Tensor; readonly inputs: readonly []; readonly outputs: readonly [number]; readonly from: string }
  | { readonly kind: 'constant'; readonly value: Tensor; readonly inputs: readonly []; readonly outputs: readonly [number]; readonly from: string };

export class Ir {
  readonly wires: IrWire[] = [];
  /** Boxes in a topological order; a removed box leaves undefined. */
  boxes: (IrBox | undefined)[] = [];
  input = -1;
  output = -1;

  wire(w: IrWire): number {
    this.wires.push(w);
    return this.wires.length - 1;
  }

  add(box: IrBox): IrBox {
    this.boxes.push(box);
    return box;
  }

  /** The live boxes in order. */
  live(): IrBox[] {
    return this.boxes.filter((b): b is IrBox => b !== undefined);
  }

  /** The box writing each wire, and the boxes reading it (in order). */
  index(): { producer: Map<number, IrBox>; readers: Map<number, IrBox[]> } {
    const producer = new Map<number, IrBox>(),
      readers = new Map<number, IrBox[]>();
    for (const b of this.live()) {
      for (const o of b.outputs) producer.set(o, b);
      for (const i of b.inputs) {
        const r = readers.get(i);
        if (r) r.push(b);
        else readers.set(i, [b]);
      }
    }
    return { producer, readers };
  }

  /** Drops the boxes whose outputs nothing reads (and are not the output). */
  prune(): void {
    const live = new Set<number>([this.output]);
    for (let i = this.boxes.length - 1; i >= 0; i--) {
      const b = this.boxes[i];
      if (!b) continue;
      if (!b.outputs.some((o) => live.has(o))) this.boxes[i] = undefined;
      else for (const v of b.inputs) live.add(v);
    }
    this.boxes = this.boxes.filter((b) => b !== undefined);
  }
}
