import { sigmoidOf } from './rows.js';
import type { Data } from './tensor.js';

/**
 * The elementwise part of one step of a gated recurrent cell, over `rows` sequences of h
 * units: what is left of the step once its matrix products are done (src/nn/recurrent: the
 * products are gemms, the gate math one pass here). Gate blocks sit side by side in each row
 * in PyTorch's order. Plain loops, any typed array: the reference every backend must match.
 */
export interface RecurrentKernels {
  /**
   * LSTM (PyTorch's gate order i, f, g, o): z [rows, 4h] holds the pre-activations
   * x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh and becomes the gates i = σ, f = σ, g = tanh, o = σ in place;
   * c = f ⊙ cPrev + i ⊙ g and hOut = o ⊙ tanh(c) ([rows, h] each).
   */
  lstmCell(rows: number, h: number, z: Data, cPrev: Data, c: Data, hOut: Data): void;
  /**
   * Its pullback, given the gates, cPrev and c of the step and the gradients dh (to hOut) and dc
   * (to c): with τ = tanh(c) and dĉ = dc + dh ⊙ o ⊙ (1 − τ²), dz = [dĉ⊙g·i(1−i), dĉ⊙cPrev·f(1−f),
   * dĉ⊙i·(1−g²), dh⊙τ·o(1−o)] and dc becomes dĉ ⊙ f, the gradient to cPrev (in place).
   */
  lstmCellBackward(rows: number, h: number, gates: Data, cPrev: Data, c: Data, dh: Data, dc: Data, dz: Data): void;
  /**
   * GRU (PyTorch's order r, z, n): xg = x·W_ihᵀ + b_ih and hg = hPrev·W_hhᵀ + b_hh ([rows, 3h]);
   * r = σ(xg_r + hg_r), z = σ(xg_z + hg_z), n = tanh(xg_n + r ⊙ hg_n) are written over xg, and
   * hOut = (1 − z) ⊙ n + z ⊙ hPrev.
   */
  gruCell(rows: number, h: number, xg: Data, hg: Data, hPrev: Data, hOut: Data): void;
  /**
   * Its pullback to the pre-activations (dxg, dhg [rows, 3h]) and the direct part of dhPrev
   * (dh ⊙ z, written; the path through W_hh is the caller's product): with a = the n gate's
   * pre-activation, da = dh(1−z)(1−n²), dxg_n = da, dhg_n = da ⊙ r, dxg_r = dhg_r = da⊙hg_n·r(1−r),
   * dxg_z = dhg_z = dh⊙(hPrev − n)·z(1−z).
   */
  gruCellBackward(rows: number, h: number, gates: Data, hg: Data, hPrev: Data, dh: Data, dxg: Data, dhg: Data, dhPrev: Data): void;
  /**
   * MGU's forget gate (Zhou et al. 2016; gates f, n in rows of 2h): f = σ(xg_f + hgF) written over
   * xg's f block, and fh = f ⊙ hPrev, the state the candidate reads.
   */
  mguGate(rows: number, h: number, xg: Data, hgF: Data, hPrev: Data, fh: Data): void;
  /** MGU's candidate and update: n = tanh(xg_n + hgN) written over xg's n block; hOut = (1 − f) ⊙ hPrev + f ⊙ n. */
  mguCell(rows: number, h: number, xg: Data, hgN: Data, hPrev: Data, hOut: Data): void;
  /**
   * The pullback of mguCell: dxg's n block = dh⊙f·(1−n²) (the candidate's pre-activation),
   * dxg's f block = dh ⊙ (n − hPrev) (∂L/∂f so far, finished by mguGateBackward), dhPrev = dh ⊙ (1 − f).
   */
  mguCellBackward(rows: number, h: number, gates: Data, hPrev: Data, dh: Data, dxg: Data, dhPrev: Data): void;
  /**
   * The pullback of mguGate, given dfh = ∂L/∂(f ⊙ hPrev): dxg's f block becomes
   * (∂L/∂f + dfh ⊙ hPrev)·f(1−f), and dhPrev += dfh ⊙ f.
   */
  mguGateBackward(rows: number, h: number, gates: Data, hPrev: Data, dfh: Data, dxg: Data, dhPrev: Data): void;
}

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

/** The reference recurrent kernels (plain loops, any typed array). */
export const recurrentKernels: RecurrentKernels = {
  lstmCell,
  lstmCellBackward,
  gruCell,
  gruCellBackward,
  mguGate,
  mguCell,
  mguCellBackward,
  mguGateBackward,
};
