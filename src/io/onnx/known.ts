import { isBatch } from '../../ops/dim.js';
import type { BatchDim, Dim } from '../../ops/dim.js';
import { Tensor } from '../../tensor/tensor.js';
import type { ElemType } from './schema.js';

/**
 * A value import knows without data: an initializer, a Constant, or what is computed from such
 * and from shapes alone (Shape, Gather, Concat … of sizes). An entry may be a multiple of the
 * batch B (`batch[i]` set, data[i] unused): the size of a batch axis, kept symbolic so the
 * model runs on any batch.
 */
export interface Known {
  readonly dims: readonly number[];
  readonly type: ElemType;
  readonly data: Float32Array | Float64Array;
  readonly batch?: readonly (BatchDim | undefined)[];
  /** Computed from an initializer (a weight: trainable where a gradient reaches it) rather than from Constants and shapes alone. */
  readonly fromInit: boolean;
  /** The ONNX value's name. */
  readonly name: string;
}

export type Elem = number | BatchDim;

/** The entries of a known value. */
export function elems(k: Known): Elem[] {
  return Array.from(k.data, (v, i) => k.batch?.[i] ?? v);
}

export const hasBatch = (k: Known): boolean => !!k.batch && k.batch.some((b) => b !== undefined);

/** A known value from entries (a batch entry where an element is a BatchDim). */
export function knownOf(entries: readonly Elem[], dims: readonly number[], type: ElemType, name: string, fromInit = false): Known {
  const data = new Float64Array(entries.length);
  const batch = entries.map((e) => (isBatch(e) ? e : undefined));
  entries.forEach((e, i) => (data[i] = isBatch(e) ? 0 : e));
  return { dims, type, data, ...(batch.some((b) => b !== undefined) ? { batch } : {}), fromInit, name };
}

/** Its values as a float64 tensor (no batch entries). */
export function tensorOfKnown(k: Known): Tensor {
  return new Tensor(k.data instanceof Float64Array ? k.data : Float64Array.from(k.data), k.dims);
}

/** Entries as sizes (a shape vector), for a 'dims' attribute. */
export const asDims = (k: Known): Dim[] => elems(k);
