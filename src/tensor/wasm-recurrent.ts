import { jsBackend } from './js-backend.js';
import type { RecurrentKernels } from './backend.js';
import type { Data } from './tensor.js';
import type { KernelExports } from './wasm/instance.js';

/**
 * How the wasm backend hands a call to its kernels (src/tensor/wasm-backend.ts): whether a call
 * runs in wasm (`takes`: big enough, float32, room made for `room` floats), where each array is
 * in wasm memory (`input`, `output`: resident arrays in place, others copied into the argument
 * region) and the copy back of a result written in the argument region (`collect`).
 */
export interface WasmCalls {
  readonly k: KernelExports;
  readonly minElements: number;
  takes(paysOff: boolean, room: number, ...arrays: Data[]): boolean;
  input(x: Data, n: number): number;
  output(out: Data, n: number, accumulate: boolean): number;
  collect(p: number, n: number, out: Data): void;
}

/**
 * The recurrent cells' elementwise steps in wasm (src/tensor/wasm/assembly/recurrent.ts): LSTM
 * and GRU, forward and pullback, the whole gate math of a step in one pass; MGU's four steps
 * likewise (src/tensor/wasm/assembly/mgu.ts).
 */
export function wasmRecurrentKernels(w: WasmCalls): RecurrentKernels {
  const { k, minElements } = w;
  return {
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
