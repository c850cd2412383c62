/// <reference types="@webgpu/types" />
import { ParalensError } from '../../errors.js';
import type { Data } from '../tensor.js';

// GPUBufferUsage and GPUMapMode bits (the WebGPU spec's values; the globals are absent in Node)
export const STORAGE = 0x80,
  UNIFORM = 0x40,
  COPY_DST = 0x08,
  COPY_SRC = 0x04,
  MAP_READ = 0x01,
  MAP_MODE_READ = 0x1;

/** A device array's buffer, and where an array (or view) starts in it, in elements. */
export interface Placed {
  readonly buffer: GPUBuffer;
  readonly offset: number;
}

/**
 * Device arrays as Float32Array handles (DeviceMemory in ../backend.ts): each handle has an
 * ArrayBuffer of its own, never written, that names its GPU buffer — so views of the handle
 * (subarray, Tensor.rows) name the same buffer at their byteOffset. The GPU buffer is
 * destroyed when the handle is collected.
 */
export class DeviceArrays {
  private readonly buffers = new WeakMap<ArrayBufferLike, GPUBuffer>();
  private readonly finalizer = new FinalizationRegistry<GPUBuffer>((b) => b.destroy());
  private live = 0;
  constructor(private readonly device: GPUDevice) {}

  alloc(n: number): Float32Array {
    const bytes = n * 4;
    if (bytes > this.device.limits.maxStorageBufferBindingSize) {
      throw new ParalensError(
        'E_RANGE',
        `webgpu: an array of ${n} float32s exceeds this device's largest storage binding (${this.device.limits.maxStorageBufferBindingSize} bytes)`,
      );
    }
    // WebGPU zeroes new buffers; sizes are rounded up to 16 bytes (a vec4) and never 0
    const buffer = this.device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 16) * 16), usage: STORAGE | COPY_SRC | COPY_DST });
    const handle = new Float32Array(n);
    this.buffers.set(handle.buffer, buffer);
    this.finalizer.register(handle, buffer);
    this.live += bytes;
    return handle;
  }

  /** The buffer and element offset of a device array or view; undefined for a host array. */
  place(x: Data): Placed | undefined {
    const buffer = x instanceof Float32Array ? this.buffers.get(x.buffer) : undefined;
    return buffer && { buffer, offset: x.byteOffset >> 2 };
  }

  holds(x: Data): boolean {
    return x instanceof Float32Array && this.buffers.has(x.buffer);
  }

  /** The placement of x, which must be a device array. */
  placed(x: Data, where: string): Placed {
    const p = this.place(x);
    if (!p) throw new ParalensError('E_BACKEND', `webgpu: ${where} expects a device array (DeviceMemory.alloc), got a host ${x.constructor.name}`, false);
    return p;
  }

  /** Bytes allocated so far (buffers are freed when their handles are collected). */
  get allocatedBytes(): number {
    return this.live;
  }
}
