import type { Backend, RecurrentKernels } from './backend.js';
import { sigmoidOf } from './rows.js';
import type { Data } from './tensor.js';

function lstmCell(rows: number, h: number, z: Data, cPrev: Data, c: Data, hOut: Data): void {
  for (let b = 0; b < rows; b++) {
    const o = 4 * h * b;
    for (let j = 0; j < h; j++) {
      const i = sigmoidOf(z[o + j]!),
        f = sigmoidOf(z[o + h + j]!),
        g = Math.tanh(z[o + 2 * h + j]!),
        og = sigmoidOf(z[o + 3 * h + j]!);
      z[o + j] = i;
      z[o + h + j] = f;
      z[o + 2 * h + j] = g;
      z[o + 3 * h + j] = og;
      const k = h * b + j;
      const cn = f * cPrev[k]! + i * g;
      c[k] = cn;
      hOut[k] = og * Math.tanh(cn);
    }
  }
}

function lstmCellBackward(rows: number, h: number, gates: Data, cPrev: Data, c: Data, dh: Data, dc: Data, dz: Data): void {
  for (let b = 0; b < rows; b++) {
    const o = 4 * h * b;
    for (let j = 0; j < h; j++) {
      const k = h * b + j;
      const i = gates[o + j]!,
        f = gates[o + h + j]!,
        g = gates[o + 2 * h + j]!,
        og = gates[o + 3 * h + j]!;
      const tc = Math.tanh(c[k]!);
      const dct = dc[k]! + dh[k]! * og * (1 - tc * tc);
      dz[o + j] = dct * g * i * (1 - i);
      dz[o + h + j] = dct * cPrev[k]! * f * (1 - f);
      dz[o + 2 * h + j] = dct * i * (1 - g * g);
      dz[o + 3 * h + j] = dh[k]! * tc * og * (1 - og);
      dc[k] = dct * f;
    }
  }
}

function gruCell(rows: number, h: number, xg: Data, hg: Data, hPrev: Data, hOut: Data): void {
  for (let b = 0; b < rows; b++) {
    const o = 3 * h * b;
    for (let j = 0; j < h; j++) {
      const r = sigmoidOf(xg[o + j]! + hg[o + j]!),
        z = sigmoidOf(xg[o + h + j]! + hg[o + h + j]!),
        n = Math.tanh(xg[o + 2 * h + j]! + r * hg[o + 2 * h + j]!);
      xg[o + j] = r;
      xg[o + h + j] = z;
      xg[o + 2 * h + j] = n;
      const k = h * b + j;
      hOut[k] = (1 - z) * n + z * hPrev[k]!;
    }
  }
}

function gruCellBackward(rows: number, h: number, gates: Data, hg: Data, hPrev: Data, dh: Data, dxg: Data, dhg: Data, dhPrev: Data): void {
  for (let b = 0; b < rows; b++) {
    const o = 3 * h * b;
    for (let j = 0; j < h; j++) {
      const k = h * b + j;
      const r = gates[o + j]!,
        z = gates[o + h + j]!,
        n = gates[o + 2 * h + j]!,
        d = dh[k]!;
      const da = d * (1 - z) * (1 - n * n);
      const dr = da * hg[o + 2 * h + j]! * r * (1 - r);
      const dzz = d * (hPrev[k]! - n) * z * (1 - z);
      dxg[o + j] = dhg[o + j] = dr;
      dxg[o + h + j] = dhg[o + h + j] = dzz;
      dxg[o + 2 * h + j] = da;
      dhg[o + 2 * h + j] = da * r;
      dhPrev[k] = d * z;
    }
  }
}

function mguGate(rows: number, h: number, xg: Data, hgF: Data, hPrev: Data, fh: Data): void {
  for (let b = 0; b < rows; b++) {
    for (let j = 0; j < h; j++) {
      const q = 2 * h * b + j,
        k = h * b + j;
      const f = sigmoidOf(xg[q]! + hgF[k]!);
      xg[q] = f;
      fh[k] = f * hPrev[k]!;
    }
  }
}

function mguCell(rows: number, h: number, xg: Data, hgN: Data, hPrev: Data, hOut: Data): void {
  for (let b = 0; b < rows; b++) {
    for (let j = 0; j < h; j++) {
      const q = 2 * h * b + j,
        k = h * b + j;
      const f = xg[q]!,
        n = Math.tanh(xg[q + h]! + hgN[k]!);
      xg[q + h] = n;
      hOut[k] = (1 - f) * hPrev[k]! + f * n;
    }
  }
}

function mguCellBackward(rows: number, h: number, gates: Data, hPrev: Data, dh: Data, dxg: Data, dhPrev: Data): void {
  for (let b = 0; b < rows; b++) {
    for (let j = 0; j < h; j++) {
      const q = 2 * h * b + j,
        k = h * b + j;
      const f = gates[q]!,
        n = gates[q + h]!,
        d = dh[k]!;
      dxg[q + h] = d * f * (1 - n * n);
      dxg[q] = d * (n - hPrev[k]!);
      dhPrev[k] = d * (1 - f);
    }
  }
}

function mguGateBackward(rows: number, h: number, gates: Data, hPrev: Data, dfh: Data, dxg: Data, dhPrev: Data): void {
  for (let b = 0; b < rows; b++) {
    for (let j = 0; j < h; j++) {
      const q = 2 * h * b + j,
        k = h * b + j;
      const f = gates[q]!;
      dxg[q] = (dxg[q]! + dfh[k]! * hPrev[k]!) * f * (1 - f);
      dhPrev[k] = dhPrev[k]! + dfh[k]! * f;
    }
  }
}

/** The kernels that run a whole sequence (the rest work on one step). */
type SequenceKernels = Pick<RecurrentKernels, 'lstmSequence' | 'lstmSequenceBackward' | 'gruSequence' | 'gruSequenceBackward'>;

/** What the step loops of sequenceKernels call. */
type StepKernels = Pick<Backend, 'gemm' | 'axpy' | 'lstmCell' | 'lstmCellBackward' | 'gruCell' | 'gruCellBackward'>;

/**
 * The sequence kernels as loops over the steps, each step one product with W_hh and one call
 * of the cell kernel of `be()` (a function, so that a backend can hand over itself): the
 * reference semantics of RecurrentKernels.lstmSequence, gruSequence and their pullbacks, and the way
 * the js backend (and float64 anywhere) runs them.
 */
export function sequenceKernels(be: () => StepKernels): SequenceKernels {
  return {
    lstmSequence(rows, h, T, whh, Z, Hs, Cs) {
      const b = be(),
        G = 4 * h,
        n = rows * h;
      for (let t = 0; t < T; t++) {
        const z = Z.subarray(t * rows * G, (t + 1) * rows * G);
        b.gemm(false, true, rows, G, h, Hs.subarray(t * n, (t + 1) * n), whh, z, true);
        b.lstmCell(rows, h, z, Cs.subarray(t * n, (t + 1) * n), Cs.subarray((t + 1) * n, (t + 2) * n), Hs.subarray((t + 1) * n, (t + 2) * n));
      }
    },
    lstmSequenceBackward(rows, h, T, whh, gates, Cs, dY, dh, dc, dZ, bptt) {
      const b = be(),
        G = 4 * h,
        n = rows * h;
      for (let t = T - 1; t >= 0; t--) {
        if (dY) b.axpy(1, dY.subarray(t * n, (t + 1) * n), dh);
        const dz = dZ.subarray(t * rows * G, (t + 1) * rows * G);
        b.lstmCellBackward(
          rows,
          h,
          gates.subarray(t * rows * G, (t + 1) * rows * G),
          Cs.subarray(t * n, (t + 1) * n),
          Cs.subarray((t + 1) * n, (t + 2) * n),
          dh,
          dc,
          dz,
        );
        // h entered the step through the gates only: dh_prev = dz·W_hh
        b.gemm(false, false, rows, h, G, dz, whh, dh, false);
        if (cut(t, bptt)) {
          dh.fill(0, 0, n);
          dc.fill(0, 0, n);
        }
      }
    },
    gruSequence(rows, h, T, whh, bhh, XG, HG, Hs) {
      const b = be(),
        G = 3 * h,
        n = rows * h;
      for (let t = 0; t < T; t++) {
        const hg = HG.subarray(t * rows * G, (t + 1) * rows * G);
        b.gemm(false, true, rows, G, h, Hs.subarray(t * n, (t + 1) * n), whh, hg, false, bhh);
        b.gruCell(rows, h, XG.subarray(t * rows * G, (t + 1) * rows * G), hg, Hs.subarray(t * n, (t + 1) * n), Hs.subarray((t + 1) * n, (t + 2) * n));
      }
    },
    gruSequenceBackward(rows, h, T, whh, gates, HG, Hs, dY, dh, dXG, dHG, bptt) {
      const b = be(),
        G = 3 * h,
        n = rows * h;
      for (let t = T - 1; t >= 0; t--) {
        if (dY) b.axpy(1, dY.subarray(t * n, (t + 1) * n), dh);
        const blk = (x: Data) => x.subarray(t * rows * G, (t + 1) * rows * G);
        const dhg = blk(dHG);
        // dh becomes dh ⊙ z (the update gate's direct path), then the path through W_hh is added
        b.gruCellBackward(rows, h, blk(gates), blk(HG), Hs.subarray(t * n, (t + 1) * n), dh, blk(dXG), dhg, dh);
        b.gemm(false, false, rows, h, G, dhg, whh, dh, true);
        if (cut(t, bptt)) dh.fill(0, 0, n);
      }
    },
  };
}

/** The truncation of src/nn/recurrent/cell.ts (cutBefore): no gradient flows back past step t. */
function cut(t: number, bptt: number | undefined): boolean {
  return bptt !== undefined && t > 0 && t % bptt === 0;
}

/** The reference kernels of a single step (plain loops, any typed array); the sequences are sequenceKernels. */
export const recurrentKernels: Omit<RecurrentKernels, keyof SequenceKernels> = {
  lstmCell,
  lstmCellBackward,
  gruCell,
  gruCellBackward,
  mguGate,
  mguCell,
  mguCellBackward,
  mguGateBackward,
};
