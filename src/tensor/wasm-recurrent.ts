import { jsBackend } from './js-backend.js';
import type { RecurrentKernels } from './backend.js';
import type { Data } from './tensor.js';
import type { KernelExports } from './wasm/instance.js';
import { LSTM, LSTM_BACK } from './wasm/threads.js';
import type { SharedLstm, SharedLstmBackward } from './wasm/threads.js';

/** The register tile's rows and the row block of the gemm kernels (src/tensor/wasm/assembly/gemm.ts). */
const MR = 4,
  MC = 128;

/**
 * How the wasm backend hands a call to its kernels (src/tensor/wasm-backend.ts): whether a call
 * runs in wasm (`takes`: big enough, float32, room made for `room` floats), where each array is
 * in wasm memory (`input`, `output`: resident arrays in place, others copied into the argument
 * region) and the copy back of a result written in the argument region (`collect`).
 */
export interface WasmCalls {
  readonly k: KernelExports;
  readonly minElements: number;
  /** Products with m·n·k below this go to the reference backend; at or above `minParallel` they are split over the threads. */
  readonly minGemm: number;
  readonly minParallel: number;
  takes(paysOff: boolean, room: number, ...arrays: (Data | undefined)[]): boolean;
  input(x: Data, n: number): number;
  output(out: Data, n: number, accumulate: boolean): number;
  collect(p: number, n: number, out: Data): void;
  /** n floats of the argument region, after `takes` (their byte address). */
  reserve(n: number): number;
  /** The threads a shared call runs on now, the calling thread included. */
  threads(): number;
  /**
   * A call shared by the threads through the counters at `counter` (zeroed first): `job` is
   * posted to the workers (kind: see src/tensor/wasm/threads.ts), then `mine(counter, work)`
   * runs the calling thread's share with its scratch; returns once every thread is done.
   * Without workers, or unless `parallel`, the caller runs it all.
   */
  share(parallel: boolean, kind: number, job: (counter: number) => SharedLstm | SharedLstmBackward, mine: (counter: number, work: number) => number): void;
}

/** Rows per chunk of a sequence shared by `threads` (whole register tiles, at most a row block): one chunk per thread. */
function rowChunk(rows: number, threads: number): number {
  return Math.min(MC, Math.ceil(Math.ceil(rows / threads) / MR) * MR);
}

/**
 * The recurrent cells' kernels in wasm. The elementwise steps (src/tensor/wasm/assembly/recurrent.ts):
 * LSTM and GRU, forward and pullback, the whole gate math of a step in one pass; MGU's steps are
 * the reference ones (no fused kernel yet). The LSTM's whole sequence, forward and pullback, in
 * one call (src/tensor/wasm/assembly/recurrent-sequence.ts): W_hh packed once for all T steps
 * (instead of once per step's product), then every step — product with W_hh and gate math —
 * on each chunk of the batch's rows, the chunks shared by the threads with no barrier between
 * steps (the elementwise math runs in parallel too). Float64, and sequences whose step product
 * is too small to pay for the copies, take the reference step loop.
 */
export function wasmRecurrentKernels(w: WasmCalls): RecurrentKernels {
  const { k, minElements, minGemm, minParallel } = w;
  return {
    lstmSequence(rows, h, T, whh, Z, Hs, Cs) {
      const G = 4 * h,
        volume = rows * G * h,
        nz = T * rows * G,
        ns = (T + 1) * rows * h;
      if (!w.takes(volume >= minGemm && rows > 0 && T > 0, k.lstmPackedFloats(h) + G * h + nz + 2 * ns, whh, Z, Hs, Cs))
        return jsBackend.lstmSequence(rows, h, T, whh, Z, Hs, Cs);
      const packed = w.reserve(k.lstmPackedFloats(h)),
        wP = w.input(whh, G * h),
        zP = w.output(Z, nz, true),
        hP = w.output(Hs, ns, true),
        cP = w.output(Cs, ns, true);
      const parallel = volume >= minParallel,
        chunk = rowChunk(rows, parallel ? w.threads() : 1);
      w.share(
        parallel,
        LSTM,
        (counter) => [rows, h, T, wP, zP, hP, cP, packed, chunk, counter],
        (counter, work) => k.lstmSequence(rows, h, T, wP, zP, hP, cP, work, packed, chunk, counter),
      );
      w.collect(zP, nz, Z);
      w.collect(hP, ns, Hs);
      w.collect(cP, ns, Cs);
    },
    lstmSequenceBackward(rows, h, T, whh, gates, Cs, dY, dh, dc, dZ, bptt) {
      const G = 4 * h,
        volume = rows * G * h,
        nz = T * rows * G,
        ns = (T + 1) * rows * h,
        n = rows * h;
      const dy = dY ?? undefined;
      if (
        !w.takes(volume >= minGemm && rows > 0 && T > 0, k.lstmPackedFloats(h) + G * h + 2 * nz + ns + (dy ? T * n : 0) + 2 * n, whh, gates, Cs, dy, dh, dc, dZ)
      )
        return jsBackend.lstmSequenceBackward(rows, h, T, whh, gates, Cs, dY, dh, dc, dZ, bptt);
      const packed = w.reserve(k.lstmPackedFloats(h)),
        wP = w.input(whh, G * h),
        gP = w.input(gates, nz),
        cP = w.input(Cs, ns),
        yP = dy ? w.input(dy, T * n) : 0,
        dhP = w.output(dh, n, true),
        dcP = w.output(dc, n, true),
        dzP = w.output(dZ, nz, false);
      const parallel = volume >= minParallel,
        chunk = rowChunk(rows, parallel ? w.threads() : 1),
        cut = bptt ?? 0;
      w.share(
        parallel,
        LSTM_BACK,
        (counter) => [rows, h, T, wP, gP, cP, yP, dhP, dcP, dzP, cut, packed, chunk, counter],
        (counter, work) => k.lstmSequenceBackward(rows, h, T, wP, gP, cP, yP, dhP, dcP, dzP, cut, work, packed, chunk, counter),
      );
      w.collect(dhP, n, dh);
      w.collect(dcP, n, dc);
      w.collect(dzP, nz, dZ);
    },
    lstmCell(rows, h, z, cPrev, c, hOut) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 7 * n, z, cPrev, c, hOut)) return jsBackend.lstmCell(rows, h, z, cPrev, c, hOut);
      const zP = w.output(z, 4 * n, true),
        cpP = w.input(cPrev, n),
        cP = w.output(c, n, false),
        hP = w.output(hOut, n, false);
      k.lstmCell(rows, h, zP, cpP, cP, hP);
      w.collect(zP, 4 * n, z);
      w.collect(cP, n, c);
      w.collect(hP, n, hOut);
    },
    lstmCellBackward(rows, h, gates, cPrev, c, dh, dc, dz) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 12 * n, gates, cPrev, c, dh, dc, dz)) return jsBackend.lstmCellBackward(rows, h, gates, cPrev, c, dh, dc, dz);
      const gP = w.input(gates, 4 * n),
        cpP = w.input(cPrev, n),
        cP = w.input(c, n),
        dhP = w.input(dh, n),
        dcP = w.output(dc, n, true),
        dzP = w.output(dz, 4 * n, false);
      k.lstmCellBackward(rows, h, gP, cpP, cP, dhP, dcP, dzP);
      w.collect(dcP, n, dc);
      w.collect(dzP, 4 * n, dz);
    },
    gruCell(rows, h, xg, hg, hPrev, hOut) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 8 * n, xg, hg, hPrev, hOut)) return jsBackend.gruCell(rows, h, xg, hg, hPrev, hOut);
      const xP = w.output(xg, 3 * n, true),
        hgP = w.input(hg, 3 * n),
        hpP = w.input(hPrev, n),
        hoP = w.output(hOut, n, false);
      k.gruCell(rows, h, xP, hgP, hpP, hoP);
      w.collect(xP, 3 * n, xg);
      w.collect(hoP, n, hOut);
    },
    gruCellBackward(rows, h, gates, hg, hPrev, dh, dxg, dhg, dhPrev) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 15 * n, gates, hg, hPrev, dh, dxg, dhg, dhPrev))
        return jsBackend.gruCellBackward(rows, h, gates, hg, hPrev, dh, dxg, dhg, dhPrev);
      const gP = w.input(gates, 3 * n),
        hgP = w.input(hg, 3 * n),
        hpP = w.input(hPrev, n),
        // dhPrev may be dh (the kernel reads each unit's dh before writing its dhPrev)
        dhP = dh === dhPrev ? w.output(dhPrev, n, true) : w.input(dh, n),
        dxP = w.output(dxg, 3 * n, false),
        dyP = w.output(dhg, 3 * n, false),
        dpP = dh === dhPrev ? dhP : w.output(dhPrev, n, false);
      k.gruCellBackward(rows, h, gP, hgP, hpP, dhP, dxP, dyP, dpP);
      w.collect(dxP, 3 * n, dxg);
      w.collect(dyP, 3 * n, dhg);
      w.collect(dpP, n, dhPrev);
    },
    mguGate: jsBackend.mguGate,
    mguCell: jsBackend.mguCell,
    mguCellBackward: jsBackend.mguCellBackward,
    mguGateBackward: jsBackend.mguGateBackward,
  };
}
