import { jsBackend } from './js-backend.js';
import type { RecurrentKernels } from './backend.js';
import type { Data } from './tensor.js';
import type { KernelExports } from './wasm/instance.js';
import { GRU, GRU_BACK, LSTM, LSTM_BACK } from './wasm/threads.js';
import type { SharedSequence } from './wasm/threads.js';

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
  /**
   * The sequences as a loop over the steps through the backend's own gemm and cell kernels
   * (sequenceKernels of the backend): where the whole-sequence kernels do not pay, or cannot run.
   */
  readonly steps: Pick<RecurrentKernels, 'lstmSequence' | 'lstmSequenceBackward' | 'gruSequence' | 'gruSequenceBackward'>;
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
  share(parallel: boolean, kind: number, job: (counter: number) => SharedSequence, mine: (counter: number, work: number) => number): void;
}

/** Rows per chunk of a sequence shared by `threads` (whole register tiles, at most a row block): one chunk per thread. */
function rowChunk(rows: number, threads: number): number {
  return Math.min(MC, Math.ceil(Math.ceil(rows / threads) / MR) * MR);
}

/**
 * The recurrent cells' kernels in wasm. The elementwise steps (src/tensor/wasm/assembly/recurrent.ts):
 * LSTM and GRU, forward and pullback, the whole gate math of a step in one pass; MGU's four steps
 * likewise (src/tensor/wasm/assembly/mgu.ts). The LSTM's and GRU's whole sequences, forward and
 * pullback, in one call each (src/tensor/wasm/assembly/recurrent-sequence.ts): W_hh packed once
 * for all T steps (instead of once per step's product), then every step — product with W_hh and
 * gate math — on each chunk of the batch's rows, the chunks shared by the threads with no
 * barrier between steps (the elementwise math runs in parallel too). Float64, single steps
 * (generation) and sequences whose step product is too small to pay for the copies take the
 * step loop over the backend's own kernels (WasmCalls.steps).
 */
export function wasmRecurrentKernels(w: WasmCalls): RecurrentKernels {
  const { k, minElements, minGemm, minParallel } = w;

  /**
   * A sequence kernel once its arrays are in place: the packed W_hh reserved, and the batch's
   * rows cut into one chunk per thread when a step's product (rows × gates·h × h) is worth
   * sharing. `call` is the kernel without its last four arguments (scratch, packed W_hh, chunk
   * size, counters); `args` its other arguments, for the workers.
   */
  function sequence(
    kind: number,
    rows: number,
    h: number,
    gates: number,
    args: number[],
    call: (work: number, packed: number, chunk: number, counter: number) => number,
  ): void {
    const packed = w.reserve(k.recurrentPackedFloats(h, gates)),
      parallel = rows * gates * h * h >= minParallel,
      chunk = rowChunk(rows, parallel ? w.threads() : 1);
    w.share(
      parallel,
      kind,
      (counter) => [...args, packed, chunk, counter],
      (counter, work) => call(work, packed, chunk, counter),
    );
  }

  /**
   * Whether a sequence runs in the whole-sequence kernel (float32, a step's product big enough,
   * more than one step: a single step's product packs W_hh once either way, and for one row the
   * step's gemm streams W_hh without packing it), room made for its `floats` of copies and the
   * packed W_hh.
   */
  function takes(rows: number, h: number, T: number, gates: number, floats: number, ...arrays: (Data | undefined)[]): boolean {
    // each of up to ten blocks (the packed W_hh and the copies) rounds up to 64 bytes: 16 floats more apiece than begin's own margin
    return w.takes(rows * gates * h * h >= minGemm && rows > 0 && T > 1, k.recurrentPackedFloats(h, gates) + floats + 16 * 10, ...arrays);
  }

  return {
    lstmSequence(rows, h, T, whh, Z, Hs, Cs) {
      const G = 4 * h,
        nz = T * rows * G,
        ns = (T + 1) * rows * h;
      if (!takes(rows, h, T, 4, G * h + nz + 2 * ns, whh, Z, Hs, Cs)) return w.steps.lstmSequence(rows, h, T, whh, Z, Hs, Cs);
      const wP = w.input(whh, G * h),
        zP = w.output(Z, nz, true),
        hP = w.output(Hs, ns, true),
        cP = w.output(Cs, ns, true);
      sequence(LSTM, rows, h, 4, [rows, h, T, wP, zP, hP, cP], (work, packed, chunk, counter) =>
        k.lstmSequence(rows, h, T, wP, zP, hP, cP, work, packed, chunk, counter),
      );
      w.collect(zP, nz, Z);
      w.collect(hP, ns, Hs);
      w.collect(cP, ns, Cs);
    },
    lstmSequenceBackward(rows, h, T, whh, gates, Cs, dY, dh, dc, dZ, bptt) {
      const G = 4 * h,
        nz = T * rows * G,
        ns = (T + 1) * rows * h,
        n = rows * h,
        dy = dY ?? undefined;
      if (!takes(rows, h, T, 4, G * h + 2 * nz + ns + (dy ? T * n : 0) + 2 * n, whh, gates, Cs, dy, dh, dc, dZ))
        return w.steps.lstmSequenceBackward(rows, h, T, whh, gates, Cs, dY, dh, dc, dZ, bptt);
      const wP = w.input(whh, G * h),
        gP = w.input(gates, nz),
        cP = w.input(Cs, ns),
        yP = dy ? w.input(dy, T * n) : 0,
        dhP = w.output(dh, n, true),
        dcP = w.output(dc, n, true),
        dzP = w.output(dZ, nz, false),
        cut = bptt ?? 0;
      sequence(LSTM_BACK, rows, h, 4, [rows, h, T, wP, gP, cP, yP, dhP, dcP, dzP, cut], (work, packed, chunk, counter) =>
        k.lstmSequenceBackward(rows, h, T, wP, gP, cP, yP, dhP, dcP, dzP, cut, work, packed, chunk, counter),
      );
      w.collect(dhP, n, dh);
      w.collect(dcP, n, dc);
      w.collect(dzP, nz, dZ);
    },
    gruSequence(rows, h, T, whh, bhh, XG, HG, Hs) {
      const G = 3 * h,
        ng = T * rows * G,
        ns = (T + 1) * rows * h;
      if (!takes(rows, h, T, 3, G * h + G + 2 * ng + ns, whh, bhh, XG, HG, Hs)) return w.steps.gruSequence(rows, h, T, whh, bhh, XG, HG, Hs);
      const wP = w.input(whh, G * h),
        bP = w.input(bhh, G),
        xP = w.output(XG, ng, true),
        gP = w.output(HG, ng, false),
        hP = w.output(Hs, ns, true);
      sequence(GRU, rows, h, 3, [rows, h, T, wP, bP, xP, gP, hP], (work, packed, chunk, counter) =>
        k.gruSequence(rows, h, T, wP, bP, xP, gP, hP, work, packed, chunk, counter),
      );
      w.collect(xP, ng, XG);
      w.collect(gP, ng, HG);
      w.collect(hP, ns, Hs);
    },
    gruSequenceBackward(rows, h, T, whh, gates, HG, Hs, dY, dh, dXG, dHG, bptt) {
      const G = 3 * h,
        ng = T * rows * G,
        ns = (T + 1) * rows * h,
        n = rows * h,
        dy = dY ?? undefined;
      if (!takes(rows, h, T, 3, G * h + 4 * ng + ns + (dy ? T * n : 0) + n, whh, gates, HG, Hs, dy, dh, dXG, dHG))
        return w.steps.gruSequenceBackward(rows, h, T, whh, gates, HG, Hs, dY, dh, dXG, dHG, bptt);
      const wP = w.input(whh, G * h),
        gP = w.input(gates, ng),
        hgP = w.input(HG, ng),
        hP = w.input(Hs, ns),
        yP = dy ? w.input(dy, T * n) : 0,
        dhP = w.output(dh, n, true),
        dxP = w.output(dXG, ng, false),
        dgP = w.output(dHG, ng, false),
        cut = bptt ?? 0;
      sequence(GRU_BACK, rows, h, 3, [rows, h, T, wP, gP, hgP, hP, yP, dhP, dxP, dgP, cut], (work, packed, chunk, counter) =>
        k.gruSequenceBackward(rows, h, T, wP, gP, hgP, hP, yP, dhP, dxP, dgP, cut, work, packed, chunk, counter),
      );
      w.collect(dhP, n, dh);
      w.collect(dxP, ng, dXG);
      w.collect(dgP, ng, dHG);
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
    mguGate(rows, h, xg, hgF, hPrev, fh) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 5 * n, xg, hgF, hPrev, fh)) return jsBackend.mguGate(rows, h, xg, hgF, hPrev, fh);
      const xP = w.output(xg, 2 * n, true),
        hfP = w.input(hgF, n),
        hpP = w.input(hPrev, n),
        fhP = w.output(fh, n, false);
      k.mguGate(rows, h, xP, hfP, hpP, fhP);
      w.collect(xP, 2 * n, xg);
      w.collect(fhP, n, fh);
    },
    mguCell(rows, h, xg, hgN, hPrev, hOut) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 5 * n, xg, hgN, hPrev, hOut)) return jsBackend.mguCell(rows, h, xg, hgN, hPrev, hOut);
      const xP = w.output(xg, 2 * n, true),
        hnP = w.input(hgN, n),
        hpP = w.input(hPrev, n),
        hoP = w.output(hOut, n, false);
      k.mguCell(rows, h, xP, hnP, hpP, hoP);
      w.collect(xP, 2 * n, xg);
      w.collect(hoP, n, hOut);
    },
    mguCellBackward(rows, h, gates, hPrev, dh, dxg, dhPrev) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 7 * n, gates, hPrev, dh, dxg, dhPrev)) return jsBackend.mguCellBackward(rows, h, gates, hPrev, dh, dxg, dhPrev);
      const gP = w.input(gates, 2 * n),
        hpP = w.input(hPrev, n),
        // dhPrev may be dh (the kernel reads each unit's dh before writing its dhPrev)
        dhP = dh === dhPrev ? w.output(dhPrev, n, true) : w.input(dh, n),
        dxP = w.output(dxg, 2 * n, false),
        dpP = dh === dhPrev ? dhP : w.output(dhPrev, n, false);
      k.mguCellBackward(rows, h, gP, hpP, dhP, dxP, dpP);
      w.collect(dxP, 2 * n, dxg);
      w.collect(dpP, n, dhPrev);
    },
    mguGateBackward(rows, h, gates, hPrev, dfh, dxg, dhPrev) {
      const n = rows * h;
      if (!w.takes(n >= minElements, 7 * n, gates, hPrev, dfh, dxg, dhPrev)) return jsBackend.mguGateBackward(rows, h, gates, hPrev, dfh, dxg, dhPrev);
      // dxg's f block and dhPrev are read and added to (in place)
      const gP = w.input(gates, 2 * n),
        hpP = w.input(hPrev, n),
        dfP = w.input(dfh, n),
        dxP = w.output(dxg, 2 * n, true),
        dpP = w.output(dhPrev, n, true);
      k.mguGateBackward(rows, h, gP, hpP, dfP, dxP, dpP);
      w.collect(dxP, 2 * n, dxg);
      w.collect(dpP, n, dhPrev);
    },
  };
}
