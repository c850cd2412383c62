/// <reference types="@webgpu/types" />
import { ParalensError } from '../../errors.js';

/** Where Debian's Chromium keeps SwiftShader's Vulkan driver (a CPU emulation of a GPU). */
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** A device and what it is. */
export interface GpuDevice {
  device: GPUDevice;
  /** e.g. "google swiftshader: SwiftShader driver 5.0.0". */
  label: string;
  /** True for SwiftShader (a CPU emulation: right results, meaningless speed). */
  emulated: boolean;
}

/**
 * Dawn's GPU instances made in Node, kept alive: a device outlives nothing it came from, and a
 * collected instance takes its devices down with it (at a random moment: when the GC runs).
 */
const instances: GPU[] = [];

/** Computed specifiers: bundlers must not pull Node-only modules into the browser build. */
const nodeImport = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);

/**
 * navigator.gpu in a browser or worker; in Node, the `webgpu` package (Dawn). Where Node finds
 * no adapter and VK_ICD_FILENAMES is unset, Chromium's SwiftShader Vulkan driver is tried.
 */
async function adapterHere(): Promise<GPUAdapter | null> {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) return nav.gpu.requestAdapter();
  const proc = (globalThis as { process?: { versions?: { node?: string }; env: Record<string, string | undefined> } }).process;
  if (!proc?.versions?.node) return null;
  const dawn = (await nodeImport('webgpu').catch(() => undefined)) as { create(opts: string[]): GPU } | undefined;
  if (!dawn)
    throw new ParalensError(
      'E_BACKEND',
      "webgpu in Node needs the npm package 'webgpu' (Dawn), an optional peer dependency of paralens: npm install webgpu",
      false,
    );
  const instance = (): GPU => instances[instances.push(dawn.create([])) - 1]!;
  const first = await instance().requestAdapter();
  if (first || proc.env['VK_ICD_FILENAMES']) return first;
  const fs = (await nodeImport('node:fs')) as typeof import('node:fs');
  if (!fs.existsSync(SWIFTSHADER_ICD)) return null;
  proc.env['VK_ICD_FILENAMES'] = SWIFTSHADER_ICD;
  return instance().requestAdapter();
}

/** A GPU device with the adapter's largest buffer limits; E_BACKEND when there is none here. */
export async function requestGpuDevice(): Promise<GpuDevice> {
  const adapter = await adapterHere();
  if (!adapter)
    throw new ParalensError(
      'E_BACKEND',
      'no WebGPU adapter here (a browser without WebGPU, or Node without a Vulkan driver: apt-get install libvulkan1 chromium gives SwiftShader)',
      false,
    );
  const { limits } = adapter;
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
      maxBufferSize: limits.maxBufferSize,
      maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
    },
  });
  const info = adapter.info;
  const emulated = /swiftshader/i.test(`${info.vendor} ${info.architecture} ${info.description} ${info.device}`);
  const label = [info.vendor, info.architecture].filter(Boolean).join(' ') + (info.description ? `: ${info.description}` : '');
  return { device, label: label || 'unknown adapter', emulated };
}
