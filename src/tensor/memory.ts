import type { DeviceMemory } from './backend.js';
import { allocFloat32, backend } from './registry.js';
import { allocData, sizeOf, Tensor } from './tensor.js';
import type { DType, Data, Shape } from './tensor.js';

/**
 * Where tensors live: fresh memory for one-off computations, an arena that hands a training
 * step the buffers of the step before, and resident arrays (the backend's own memory, a
 * device's included) for what lives across steps — parameters, gradients, optimiser state.
 */

/** Allocates fresh zeroed tensors (a Ctx's `alloc` outside training). */
export function freshAlloc(shape: Shape, dtype: DType): Tensor {
  return new Tensor(allocData(dtype, sizeOf(shape)), shape);
}

/**
 * Reuses memory across training steps: the k-th allocation of a step gets the buffer the
 * k-th allocation of the previous step got, if its size matches. Call `reset()` at the start
 * of every step; tensors from the previous step are then overwritten.
 */
export class Arena {
  private pool: Data[] = [];
  private cursor = 0;
  /** With `device`, float32 buffers are device arrays (zeroed by the backend's fill kernel). */
  constructor(private readonly device?: DeviceMemory) {}
  reset(): void {
    this.cursor = 0;
  }
  readonly alloc = (shape: Shape, dtype: DType, overwrite = false): Tensor => {
    const n = sizeOf(shape);
    let buf = this.pool[this.cursor];
    // a smaller request (the last, partial minibatch of an epoch) takes the front of the
    // buffer: reallocating there and back every epoch would leave resident blocks for the
    // garbage collector, which frees them only once the synchronous training loop returns
    if (!buf || buf.length < n || (dtype === 'float64') !== buf instanceof Float64Array) {
      buf = this.device && dtype === 'float32' ? this.device.alloc(n) : residentData(dtype, n);
      this.pool[this.cursor] = buf;
    } else if (!overwrite) {
      if (this.device) backend().fill(buf.subarray(0, n), 0);
      else buf.fill(0, 0, n);
    }
    this.cursor++;
    return new Tensor(buf.length === n ? buf : buf.subarray(0, n), shape);
  };
}

/** n zeros for a buffer used across many steps: float32 ones in the backend's own memory where it has one (allocFloat32). */
export function residentData(dtype: DType, n: number): Data {
  return dtype === 'float32' ? allocFloat32(n) : allocData(dtype, n);
}

/** Zeros shaped like t, in the memory t lives in: a device array when t is one, else resident storage. */
export function zerosBeside(t: Tensor): Tensor {
  const dev = backend().device;
  return new Tensor(dev?.holds(t.data) ? dev.alloc(t.size) : residentData(t.dtype, t.size), t.shape);
}

/** A copy of each tensor in resident storage (residentData). */
export function residentCopies(ts: readonly Tensor[]): Tensor[] {
  return ts.map((t) => {
    const data = residentData(t.dtype, t.size);
    data.set(t.data);
    return new Tensor(data, t.shape);
  });
}
