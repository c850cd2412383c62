import { DeviceSupportError } from '../../errors.js';
import type { RecurrentKernels } from '../backend.js';
import type { Data } from '../tensor.js';

/**
 * The recurrent cells' kernels on a device backend: there are no WebGPU ones yet, so each runs
 * on the host backend for host arrays and refuses device arrays with E_DEVICE. (Training never
 * gets that far: the recurrent layers compute on the host between their kernels, so the device
 * trainer refuses them by name first — src/train/device-trainer.ts.)
 */
/** The recurrent kernels by name (a record, so a new kernel must be listed) — only these are wrapped; every other kernel keeps its device version. */
const RECURRENT_KERNELS: Record<keyof RecurrentKernels, true> = {
  lstmCell: true,
  lstmCellBackward: true,
  lstmSequence: true,
  lstmSequenceBackward: true,
  gruCell: true,
  gruCellBackward: true,
  gruSequence: true,
  gruSequenceBackward: true,
  mguGate: true,
  mguCell: true,
  mguCellBackward: true,
  mguGateBackward: true,
};

export function hostRecurrentKernels(host: RecurrentKernels, name: string, onDevice: (x: Data) => boolean): RecurrentKernels {
  const kernels = {} as Record<keyof RecurrentKernels, (...args: never[]) => void>;
  for (const k of Object.keys(RECURRENT_KERNELS) as (keyof RecurrentKernels)[]) {
    kernels[k] = (...args: unknown[]) => {
      if (args.some((a) => (a instanceof Float32Array || a instanceof Float64Array) && onDevice(a)))
        throw new DeviceSupportError(`${name} has no device kernel for the recurrent step ${k}; run recurrent layers with --backend wasm`);
      (host[k] as (...a: unknown[]) => void)(...args);
    };
  }
  return kernels as unknown as RecurrentKernels;
}
