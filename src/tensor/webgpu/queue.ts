/// <reference types="@webgpu/types" />
import type { Data } from '../tensor.js';
import { COPY_DST, DeviceArrays, MAP_MODE_READ, MAP_READ, STORAGE, UNIFORM } from './memory.js';
import type { Placed } from './memory.js';
import { generate, UNIFORM_BLOCK, uniformFields } from './program.js';
import type { Kernel } from './program.js';

/** Uniform blocks per submission: work is submitted when they run out (or when data must move). */
const BLOCKS = 512;
/** The most workgroups a dispatch may have along one axis (WebGPU's maxComputeWorkgroupsPerDimension default). */
export const MAX_GROUPS = 65535;

/**
 * Records kernel dispatches into one command encoder and submits them in order: before any
 * host↔device transfer (so a write never overtakes the work queued before it) and when the
 * block of uniforms runs out. Pipelines are compiled once per kernel, constants and aliasing.
 */
export class GpuQueue {
  readonly arrays: DeviceArrays;
  private readonly pipelines = new Map<string, GPUComputePipeline>();
  private readonly ring: GPUBuffer;
  private readonly staging = new ArrayBuffer(BLOCKS * UNIFORM_BLOCK);
  private readonly u32 = new Uint32Array(this.staging);
  private readonly f32 = new Float32Array(this.staging);
  private blocks = 0;
  private encoder: GPUCommandEncoder | undefined;
  private pass: GPUComputePassEncoder | undefined;
  private temporaries: GPUBuffer[] = [];
  dispatches = 0;

  /** The first error the device reported (a bug in a kernel, or the device lost): read and done reject with it. */
  private failure: Error | undefined;

  constructor(readonly device: GPUDevice) {
    this.arrays = new DeviceArrays(device);
    device.addEventListener?.('uncapturederror', (e) => {
      this.failure ??= new Error(`webgpu: ${(e as GPUUncapturedErrorEvent).error.message}`);
    });
    this.ring = device.createBuffer({ size: BLOCKS * UNIFORM_BLOCK, usage: UNIFORM | COPY_DST });
  }

  /**
   * Queues kernel k over `groups` workgroups ([x, y]; use groups1d for one-dimensional
   * kernels). `arrays` in the order of k.arrays: device arrays, or host float32 arrays that are
   * only read (copied to the device for this call).
   */
  run(
    k: Kernel,
    consts: Readonly<Record<string, number | boolean>>,
    arrays: readonly Data[],
    scalars: readonly number[],
    groups: readonly [number, number],
  ): void {
    if (groups[0] === 0 || groups[1] === 0) return;
    const placed = arrays.map((x, i) => this.arrays.place(x) ?? this.upload(x, k, i));
    // one binding per distinct buffer
    const buffers: GPUBuffer[] = [];
    const slots = placed.map((p) => {
      let s = buffers.indexOf(p.buffer);
      if (s < 0) s = buffers.push(p.buffer) - 1;
      return s;
    });
    const key = `${k.name}|${JSON.stringify(consts)}|${slots.join(',')}`;
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      const module = this.device.createShaderModule({ code: generate(k, consts, slots), label: k.name });
      pipeline = this.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: k.name });
      this.pipelines.set(key, pipeline);
    }
    if (this.blocks === BLOCKS) this.flush();
    const block = this.blocks++;
    const base = (block * UNIFORM_BLOCK) >> 2;
    uniformFields(k).forEach(([, type], i) => {
      const v = i < placed.length ? placed[i]!.offset : scalars[i - placed.length]!;
      if (type === 'u32') this.u32[base + i] = v;
      else this.f32[base + i] = v;
    });
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: this.ring, offset: block * UNIFORM_BLOCK, size: UNIFORM_BLOCK } }];
    buffers.forEach((buffer, s) => entries.push({ binding: s + 1, resource: { buffer } }));
    const bindGroup = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    const pass = this.computePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bindGroup);
    pass.dispatchWorkgroups(groups[0], groups[1]);
    this.dispatches++;
  }

  /** A read-only host argument, copied to a buffer that lives until the next submission. */
  private upload(x: Data, k: Kernel, i: number): Placed {
    if (k.arrays[i]!.write) throw new Error(`webgpu ${k.name}: the output ${k.arrays[i]!.name} must be a device array`);
    const data = x instanceof Float32Array ? x : Float32Array.from(x);
    const buffer = this.device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: STORAGE | COPY_DST, mappedAtCreation: true });
    new Float32Array(buffer.getMappedRange(), 0, data.length).set(data);
    buffer.unmap();
    this.temporaries.push(buffer);
    return { buffer, offset: 0 };
  }

  private computePass(): GPUComputePassEncoder {
    this.encoder ??= this.device.createCommandEncoder();
    this.pass ??= this.encoder.beginComputePass();
    return this.pass;
  }

  /** Submits what has been recorded. */
  flush(): void {
    if (!this.encoder) return;
    this.pass?.end();
    this.pass = undefined;
    if (this.blocks) this.device.queue.writeBuffer(this.ring, 0, new Uint8Array(this.staging, 0, this.blocks * UNIFORM_BLOCK));
    this.device.queue.submit([this.encoder.finish()]);
    this.encoder = undefined;
    this.blocks = 0;
    for (const b of this.temporaries) b.destroy();
    this.temporaries = [];
  }

  /** Queues a copy of host values into a device array (after the work recorded so far). */
  write(dst: Float32Array, src: Data): void {
    const p = this.arrays.placed(dst, 'write');
    if (src.length > dst.length) throw new RangeError(`webgpu write: ${src.length} values into an array of ${dst.length}`);
    if (src.length === 0) return;
    this.flush();
    const data = src instanceof Float32Array ? src : Float32Array.from(src);
    this.device.queue.writeBuffer(p.buffer, p.offset * 4, data.buffer, data.byteOffset, data.byteLength);
  }

  /** The values of a device array once the work before it has run. */
  async read(x: Float32Array): Promise<Float32Array> {
    const p = this.arrays.placed(x, 'read');
    const out = new Float32Array(x.length);
    if (x.length === 0) return out;
    const bytes = Math.ceil(x.byteLength / 4) * 4;
    const staging = this.device.createBuffer({ size: bytes, usage: MAP_READ | COPY_DST });
    this.flush();
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(p.buffer, p.offset * 4, staging, 0, bytes);
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(MAP_MODE_READ);
    this.check();
    out.set(new Float32Array(staging.getMappedRange(), 0, x.length));
    staging.unmap();
    staging.destroy();
    return out;
  }

  /** Resolves once everything submitted so far has run. */
  async done(): Promise<void> {
    this.flush();
    await this.device.queue.onSubmittedWorkDone();
    this.check();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }
}

/** Workgroups for n threads of a one-dimensional kernel with `size` threads a group (spread over y past 65,535 groups). */
export function groups1d(n: number, size: number): [number, number] {
  const g = Math.ceil(n / size);
  if (g <= MAX_GROUPS) return [g, 1];
  const y = Math.ceil(g / MAX_GROUPS);
  return [Math.ceil(g / y), y];
}
