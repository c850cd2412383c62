// The recurrent cells' elementwise steps (RecurrentKernels) on every backend against the
// float64 reference: random rows and widths (h around the 4-lane width: the tails), gates
// written in place, the pullbacks' in-place state gradients, in fresh and in resident memory.
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/tensor/backend.js';
import { recurrentKernels } from '../../src/tensor/recurrent-kernels.js';
import { Rng } from '../../src/random/rng.js';

const SHAPES: readonly [number, number][] = [
  [1, 1],
  [3, 5],
  [2, 8],
  [7, 13],
  [33, 64],
];

function close(got: ArrayLike<number>, want: ArrayLike<number>, what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!);
    if (!(err <= 2e-6 + 2e-5 * Math.abs(want[i]!))) throw new Error(`${what}: element ${i} is ${got[i]} but should be ${want[i]} (error ${err})`);
  }
}

/** The arrays of a call: float32 (in the backend's own memory when `resident`) and their float64 twins. */
function arrays(be: Backend, rng: Rng, resident: boolean, sizes: readonly number[], scale = 1.5): { f32: Float32Array[]; f64: Float64Array[] } {
  const f32 = sizes.map((n) => (resident && be.alloc ? be.alloc(n) : undefined) ?? new Float32Array(n));
  f32.forEach((a) => {
    for (let i = 0; i < a.length; i++) a[i] = (2 * rng.uniform() - 1) * scale;
  });
  return { f32, f64: f32.map((a) => Float64Array.from(a)) };
}

export function recurrentKernelSuite(backends: readonly Backend[]): void {
  for (const be of backends) {
    describe(`recurrent kernels on ${be.name}`, () => {
      for (const resident of [false, true]) {
        const where = resident ? 'resident' : 'fresh';
        it(`lstmCell and its pullback agree with the float64 reference (${where} arrays)`, () => {
          const rng = new Rng(5);
          for (const [rows, h] of SHAPES) {
            const n = rows * h;
            const { f32, f64 } = arrays(be, rng, resident, [4 * n, n, n, n, n, n, 4 * n]);
            const [z, cp, c, ho, dh, dc, dz] = f32 as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
            const [z2, cp2, c2, ho2, dh2, dc2, dz2] = f64 as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
            be.lstmCell(rows, h, z, cp, c, ho);
            recurrentKernels.lstmCell(rows, h, z2, cp2, c2, ho2);
            close(z, z2, `lstmCell ${rows}×${h}: gates`);
            close(c, c2, `lstmCell ${rows}×${h}: c`);
            close(ho, ho2, `lstmCell ${rows}×${h}: h`);
            be.lstmCellBackward(rows, h, z, cp, c, dh, dc, dz);
            recurrentKernels.lstmCellBackward(rows, h, z2, cp2, c2, dh2, dc2, dz2);
            close(dz, dz2, `lstmCellBackward ${rows}×${h}: dz`);
            close(dc, dc2, `lstmCellBackward ${rows}×${h}: dc`);
          }
        });
        it(`gruCell and its pullback (dhPrev written over dh) agree with the float64 reference (${where} arrays)`, () => {
          const rng = new Rng(6);
          for (const [rows, h] of SHAPES) {
            const n = rows * h;
            const { f32, f64 } = arrays(be, rng, resident, [3 * n, 3 * n, n, n, n, 3 * n, 3 * n]);
            const [xg, hg, hp, ho, dh, dxg, dhg] = f32 as Float32Array[];
            const [xg2, hg2, hp2, ho2, dh2, dxg2, dhg2] = f64 as Float64Array[];
            be.gruCell(rows, h, xg!, hg!, hp!, ho!);
            recurrentKernels.gruCell(rows, h, xg2!, hg2!, hp2!, ho2!);
            close(xg!, xg2!, `gruCell ${rows}×${h}: gates`);
            close(ho!, ho2!, `gruCell ${rows}×${h}: h`);
            be.gruCellBackward(rows, h, xg!, hg!, hp!, dh!, dxg!, dhg!, dh!);
            recurrentKernels.gruCellBackward(rows, h, xg2!, hg2!, hp2!, dh2!, dxg2!, dhg2!, dh2!);
            close(dxg!, dxg2!, `gruCellBackward ${rows}×${h}: dxg`);
            close(dhg!, dhg2!, `gruCellBackward ${rows}×${h}: dhg`);
            close(dh!, dh2!, `gruCellBackward ${rows}×${h}: dhPrev`);
          }
        });
        it(`the mgu steps and their pullbacks agree with the float64 reference (${where} arrays)`, () => {
          const rng = new Rng(7);
          for (const [rows, h] of [...SHAPES, ...MGU_ROWS]) mguAgrees(be, rng, resident, rows, h, 0, true);
        });
        it(`the mgu steps agree where σ and tanh saturate (pre-activations ±30), dhPrev apart from dh (${where} arrays)`, () => {
          const rng = new Rng(8);
          for (const [rows, h] of [...SHAPES, ...MGU_ROWS]) mguAgrees(be, rng, resident, rows, h, 30, false);
        });
      }
    });
  }
}

/** Single rows (batch 1) a multiple of 4 wide and not: the whole row in lanes, or a tail after them. */
const MGU_ROWS: readonly [number, number][] = [
  [1, 12],
  [1, 7],
];

/**
 * One MGU step and its pullback on `be` against the float64 reference: mguGate, mguCell, then
 * mguCellBackward and mguGateBackward as src/nn/recurrent/mgu.ts calls them (dhPrev written over
 * dh when `alias`). With `saturate`, xg's pre-activations are ±saturate, so σ and tanh (and their
 * derivatives read off the gates) sit at their limits.
 */
function mguAgrees(be: Backend, rng: Rng, resident: boolean, rows: number, h: number, saturate: number, alias: boolean): void {
  const n = rows * h;
  const { f32, f64 } = arrays(be, rng, resident, [2 * n, n, n, n, n, n, n, 2 * n, n, n]);
  const [xg, hf, hp, fh, hn, ho, dh, dxg, dfh, dp] = f32 as Float32Array[];
  const [xg2, hf2, hp2, fh2, hn2, ho2, dh2, dxg2, dfh2, dp2] = f64 as Float64Array[];
  if (saturate) for (let i = 0; i < xg!.length; i++) xg2![i] = xg![i] = rng.uniform() < 0.5 ? -saturate : saturate;
  const dhPrev = alias ? dh! : dp!,
    dhPrev2 = alias ? dh2! : dp2!;
  const at = `mgu ${rows}×${h}${saturate ? ` at ±${saturate}` : ''}`;
  be.mguGate(rows, h, xg!, hf!, hp!, fh!);
  recurrentKernels.mguGate(rows, h, xg2!, hf2!, hp2!, fh2!);
  close(xg!, xg2!, `${at}: f`);
  close(fh!, fh2!, `${at}: f ⊙ h`);
  be.mguCell(rows, h, xg!, hn!, hp!, ho!);
  recurrentKernels.mguCell(rows, h, xg2!, hn2!, hp2!, ho2!);
  close(xg!, xg2!, `${at}: gates`);
  close(ho!, ho2!, `${at}: h`);
  be.mguCellBackward(rows, h, xg!, hp!, dh!, dxg!, dhPrev);
  recurrentKernels.mguCellBackward(rows, h, xg2!, hp2!, dh2!, dxg2!, dhPrev2);
  close(dxg!, dxg2!, `${at}: mguCellBackward dxg`);
  close(dhPrev, dhPrev2, `${at}: mguCellBackward dhPrev`);
  if (!alias) close(dh!, dh2!, `${at}: dh is read only`);
  be.mguGateBackward(rows, h, xg!, hp!, dfh!, dxg!, dhPrev);
  recurrentKernels.mguGateBackward(rows, h, xg2!, hp2!, dfh2!, dxg2!, dhPrev2);
  close(dxg!, dxg2!, `${at}: mguGateBackward dxg`);
  close(dhPrev, dhPrev2, `${at}: mguGateBackward dhPrev`);
}
