// Every step of an LSTM or GRU layer over a sequence in one call (RecurrentKernels.lstmSequence,
// gruSequence and their pullbacks; the reference loops are in src/tensor/recurrent-kernels.ts). W_hh is
// packed once for the whole sequence, by all threads together (packShared), instead of once per
// step; then each thread takes chunks of the batch's rows and runs every step on its rows:
// the product with W_hh and the gate math of a step touch only that step's rows, and the rows
// of different sequences never meet, so the threads need no barrier between the steps. Chunks
// are whole MR-row tiles (but the last), and a row's product sums the same packed blocks in the
// same order however the rows are cut, so the bits do not depend on the number of threads.
//
// Layout (time-major, byte addresses): Z, dZ [T, rows, 4h] (LSTM), XG, HG and their gradients
// [T, rows, 3h] (GRU); Hs, Cs [T + 1, rows, h] with the initial state in block 0; dY [T, rows, h];
// dh, dc [rows, h]; W_hh [gates·h, h].
import { addRowVector } from './elementwise';
import { claim, packedBFloats, packShared, productPacked } from './gemm';
import { gruCell, gruCellBackward, lstmCell, lstmCellBackward } from './recurrent';

/** Floats of a packed W_hh [gates·h, h] (either orientation): what the host reserves for `packed`. */
export function recurrentPackedFloats(h: i32, gates: i32): i32 {
  return max(packedBFloats(gates * h, h), packedBFloats(h, gates * h));
}

/**
 * Forward: for t = 0…T−1, Z_t += H_t·W_hhᵀ, then lstmCell(Z_t, C_t → C_{t+1}, H_{t+1}) — on
 * the rows of each chunk of `chunk` rows taken from the counter at counter+4. Every thread of
 * a call runs this with the same arguments and its own `work` (gemmWorkBytes()); returns the
 * packing groups and chunks this thread ran.
 */
export function lstmSequence(rows: i32, h: i32, T: i32, w: usize, z: usize, hs: usize, cs: usize, work: usize, packed: usize, chunk: i32, counter: usize): i32 {
  const G = 4 * h;
  // op(B) = W_hhᵀ: W_hh is stored [4h, h], n×k
  let taken = packShared(true, G, h, w, h, packed, counter);
  const zStep = (<usize>rows * G) << 2,
    sStep = (<usize>rows * h) << 2;
  for (let i0 = claim(counter + 4, chunk); i0 < rows; i0 = claim(counter + 4, chunk)) {
    const mc = min(chunk, rows - i0);
    let zt = z + ((<usize>i0 * G) << 2),
      ht = hs + ((<usize>i0 * h) << 2),
      ct = cs + ((<usize>i0 * h) << 2);
    for (let t = 0; t < T; t++) {
      productPacked(mc, G, h, ht, h, packed, zt, G, true, work);
      lstmCell(mc, h, zt, ct, ct + sStep, ht + sStep);
      zt += zStep;
      ht += sStep;
      ct += sStep;
    }
    taken++;
  }
  return taken;
}

/**
 * Its pullback: for t = T−1…0, dh += dY_t (dY = 0: no output gradients), lstmCellBackward(Z_t,
 * C_t, C_{t+1}, dh, dc → dZ_t), dh = dZ_t·W_hh, and after a step t > 0 that is a multiple of
 * `bptt` (> 0) dh and dc are zeroed: truncated backpropagation through time. dh and dc end as
 * the gradients to the initial state. Shared between threads like lstmSequence.
 */
export function lstmSequenceBackward(
  rows: i32,
  h: i32,
  T: i32,
  w: usize,
  gates: usize,
  cs: usize,
  dy: usize,
  dh: usize,
  dc: usize,
  dz: usize,
  bptt: i32,
  work: usize,
  packed: usize,
  chunk: i32,
  counter: usize,
): i32 {
  const G = 4 * h;
  // op(B) = W_hh: stored [4h, h], k×n
  let taken = packShared(false, h, G, w, h, packed, counter);
  const zStep = (<usize>rows * G) << 2,
    sStep = (<usize>rows * h) << 2;
  for (let i0 = claim(counter + 4, chunk); i0 < rows; i0 = claim(counter + 4, chunk)) {
    const mc = min(chunk, rows - i0);
    const zo = (<usize>i0 * G) << 2,
      so = (<usize>i0 * h) << 2,
      dhc = dh + so,
      dcc = dc + so,
      n = mc * h;
    for (let t = T - 1; t >= 0; t--) {
      if (dy) addInto(dy + <usize>t * sStep + so, dhc, n);
      const dzt = dz + <usize>t * zStep + zo,
        ct = cs + <usize>t * sStep + so;
      lstmCellBackward(mc, h, gates + <usize>t * zStep + zo, ct, ct + sStep, dhc, dcc, dzt);
      // h entered the step through the gates only: dh_prev = dz·W_hh
      productPacked(mc, h, G, dzt, G, packed, dhc, h, false, work);
      if (bptt > 0 && t > 0 && t % bptt == 0) {
        memory.fill(dhc, 0, <usize>n << 2);
        memory.fill(dcc, 0, <usize>n << 2);
      }
    }
    taken++;
  }
  return taken;
}

/**
 * GRU forward: for t = 0…T−1, HG_t = H_t·W_hhᵀ + b_hh, then gruCell(XG_t, HG_t, H_t → H_{t+1})
 * (the gates written over XG_t), chunk by chunk of rows like lstmSequence.
 */
export function gruSequence(rows: i32, h: i32, T: i32, w: usize, bias: usize, xg: usize, hg: usize, hs: usize, work: usize, packed: usize, chunk: i32, counter: usize): i32 {
  const G = 3 * h;
  let taken = packShared(true, G, h, w, h, packed, counter);
  const gStep = (<usize>rows * G) << 2,
    sStep = (<usize>rows * h) << 2;
  for (let i0 = claim(counter + 4, chunk); i0 < rows; i0 = claim(counter + 4, chunk)) {
    const mc = min(chunk, rows - i0);
    let xt = xg + ((<usize>i0 * G) << 2),
      gt = hg + ((<usize>i0 * G) << 2),
      ht = hs + ((<usize>i0 * h) << 2);
    for (let t = 0; t < T; t++) {
      productPacked(mc, G, h, ht, h, packed, gt, G, false, work);
      addRowVector(gt, bias, mc, G, gt, 0);
      gruCell(mc, h, xt, gt, ht, ht + sStep);
      xt += gStep;
      gt += gStep;
      ht += sStep;
    }
    taken++;
  }
  return taken;
}

/**
 * Its pullback: for t = T−1…0, dh += dY_t (dY = 0: none), gruCellBackward(XG_t, HG_t, H_t, dh →
 * dXG_t, dHG_t, and dh ⊙ z written over dh), dh += dHG_t·W_hh, and after a step t > 0 that is a
 * multiple of `bptt` (> 0) dh is zeroed.
 */
export function gruSequenceBackward(
  rows: i32,
  h: i32,
  T: i32,
  w: usize,
  gates: usize,
  hg: usize,
  hs: usize,
  dy: usize,
  dh: usize,
  dxg: usize,
  dhg: usize,
  bptt: i32,
  work: usize,
  packed: usize,
  chunk: i32,
  counter: usize,
): i32 {
  const G = 3 * h;
  let taken = packShared(false, h, G, w, h, packed, counter);
  const gStep = (<usize>rows * G) << 2,
    sStep = (<usize>rows * h) << 2;
  for (let i0 = claim(counter + 4, chunk); i0 < rows; i0 = claim(counter + 4, chunk)) {
    const mc = min(chunk, rows - i0);
    const go = (<usize>i0 * G) << 2,
      so = (<usize>i0 * h) << 2,
      dhc = dh + so,
      n = mc * h;
    for (let t = T - 1; t >= 0; t--) {
      if (dy) addInto(dy + <usize>t * sStep + so, dhc, n);
      const o = <usize>t * gStep + go,
        dhgt = dhg + o;
      gruCellBackward(mc, h, gates + o, hg + o, hs + <usize>t * sStep + so, dhc, dxg + o, dhgt, dhc);
      productPacked(mc, h, G, dhgt, G, packed, dhc, h, true, work);
      if (bptt > 0 && t > 0 && t % bptt == 0) memory.fill(dhc, 0, <usize>n << 2);
    }
    taken++;
  }
  return taken;
}

/** y += x over n floats. */
function addInto(x: usize, y: usize, n: i32): void {
  const n4 = n & ~3;
  let i = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    v128.store(y + o, f32x4.add(v128.load(y + o), v128.load(x + o)));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<f32>(y + o, load<f32>(y + o) + load<f32>(x + o));
  }
}
