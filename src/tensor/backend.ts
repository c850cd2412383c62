import type { Data } from './tensor.js';
import type { Window } from './window.js';

/**
 * The scalars of one Adam step (Backend.adam): moment decays, the bias-corrected step size
 * and ε, the L2 coefficient added to the gradient, and AdamW's decoupled shrink factor (1: none).
 */
export interface AdamStep {
  b1: number;
  b2: number;
  step: number;
  epsHat: number;
  l2: number;
  shrink: number;
}

/**
 * Matrices side by side in one array, for Backend.gemmBatched: matrix (o, i) of an
 * outer × inner batch starts at element o·outer + i·inner, and its rows are `ld` apart. The
 * heads of a multi-head attention are such a batch over [B, T, d] activations (outer T·d per
 * sequence, inner d/heads per head, ld d): no head is copied out.
 */
export interface MatrixBatch {
  readonly data: Data;
  readonly ld: number;
  readonly outer: number;
  readonly inner: number;
}

/**
 * cos and sin of the rotation angles of T positions × `half` feature pairs ([T, half] each,
 * row t for the t-th position of a sequence), for Backend.rotatePairs (RoPE's ρ(m)).
 */
export interface Rotation {
  readonly T: number;
  readonly half: number;
  readonly cos: Data;
  readonly sin: Data;
}

/** The activations Backend.swapAxes applies (those a layer can fuse: FusableOp in src/nn/fuse.ts). */
export type SwapOp = 'identity' | 'relu' | 'sigmoid' | 'tanh' | 'exp';

/** Elementwise functions that kernels know by name (so a backend can fuse them). */
export type UnaryOp = 'identity' | 'sigmoid' | 'tanh' | 'relu' | 'gelu' | 'softplus' | 'exp' | 'neg' | 'square';

/**
 * The kernels behind every tensor operation. Arrays are row-major and contiguous; pass
 * `subarray` views for offsets. Every kernel works on Float32Array and Float64Array
 * (a backend may hand float64 to the reference backend).
 *
 * The reference implementation is `jsBackend`; a fast backend must agree with it within
 * float32 tolerance (the backend test suite runs against every registered backend). The
 * elementwise steps of the recurrent cells (RecurrentKernels) are part of it.
 */
export interface Backend extends RecurrentKernels {
  readonly name: string;
  /**
   * C (m×n) = op(A)·op(B), plus C's old value when `accumulate`.
   * op(A) is m×k: A is stored m×k, or k×m when `transA`. op(B) is k×n: B is stored k×n, or n×k when `transB`.
   * With `bias` (n) the epilogue C = op(C + bias broadcast over rows) follows, as addRowVector
   * would apply it (a dense layer's forward in one call; a device backend fuses it into the product).
   */
  gemm(transA: boolean, transB: boolean, m: number, n: number, k: number, a: Data, b: Data, c: Data, accumulate: boolean, bias?: Data, op?: UnaryOp): void;
  /**
   * For every (o, i) of a count[0] × count[1] batch: C(o,i) (m×n) = op(A(o,i))·op(B(o,i)),
   * plus its old value when `accumulate` (the transposes and sizes as in gemm).
   */
  gemmBatched(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: MatrixBatch,
    b: MatrixBatch,
    c: MatrixBatch,
    count: readonly [number, number],
    accumulate: boolean,
  ): void;
  /**
   * Attention weights, in place over `blocks` consecutive [Tq, Tk] blocks of scores s: each
   * row becomes softmax(scale·s + bias) where bias (if given, [heads, Tq, Tk]) is block b's
   * head's (b mod heads). With `causal`, query row i sees keys j ≤ i + qOffset only (the
   * others get weight exactly 0); a row that sees none is all zeros.
   */
  attentionSoftmax(s: Data, blocks: number, Tq: number, Tk: number, scale: number, causal: boolean, qOffset: number, bias?: Data, heads?: number): void;
  /**
   * The pullback of attentionSoftmax to the raw scores, in place over dp: per row of n,
   * dp ← scale·p ⊙ (dp − ⟨dp, p⟩). (The gradient of the bias is dp/scale, summed over blocks.)
   */
  attentionSoftmaxBackward(p: Data, dp: Data, rows: number, n: number, scale: number): void;
  /**
   * RoPE in place over `count` sequences x [count, r.T, d]: each row holds `groups` consecutive
   * groups of 2·r.half features (one per head), and pair (2i, 2i+1) of every group in row t
   * becomes (a·cos − b·sin, a·sin + b·cos) with r's angle (t, i); `inverse` applies ρᵀ (sin negated).
   */
  rotatePairs(x: Data, count: number, d: number, r: Rotation, groups: number, inverse: boolean): void;
  /** y[i, :] = table[ids[i], :] for each of the ids (rows of d; ids as numbers): an embedding lookup. */
  gatherRows(ids: Data, table: Data, d: number, y: Data): void;
  /** Its pullback: dTable[ids[i], :] += dy[i, :] (repeated ids add up). */
  scatterRows(dy: Data, ids: Data, d: number, dTable: Data): void;
  /**
   * Normalisation of `rows` rows of d features: x̂ = (x − μ)·r with r = 1/√(σ² + eps) (layernorm),
   * or, when not `centre`, x̂ = x·r with r = 1/√(mean(x²) + eps) (rmsnorm); y = g ⊙ x̂ (+ b when
   * given). Writes y, x̂ and r (one per row) for the pullback.
   */
  layerNorm(x: Data, rows: number, d: number, g: Data, b: Data | undefined, eps: number, centre: boolean, y: Data, xhat: Data, r: Data): void;
  /**
   * Its pullback, with ĝ = dy ⊙ g: dx = (ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂))·r (no mean(ĝ) when not
   * `centre`), dg += Σ_rows dy ⊙ x̂, db += Σ_rows dy; each output skipped when absent.
   */
  layerNormBackward(
    dy: Data,
    xhat: Data,
    r: Data,
    rows: number,
    d: number,
    g: Data,
    centre: boolean,
    dx: Data | undefined,
    dg: Data | undefined,
    db: Data | undefined,
  ): void;
  /** out[i] = f(x[i]). `out` may be `x`. */
  unary(op: UnaryOp, x: Data, out: Data): void;
  /**
   * dx[i] (+)= dy[i]·f′(x[i]), where y = f(x) is given too (sigmoid and tanh use y).
   * `dx` may alias `dy`.
   */
  unaryBackward(op: UnaryOp, x: Data, y: Data, dy: Data, dx: Data, accumulate: boolean): void;
  /** out (rows×cols) = x + v broadcast over rows, then f applied (a fused bias + activation). */
  addRowVector(x: Data, v: Data, rows: number, cols: number, out: Data, op: UnaryOp): void;
  /** out (cols) (+)= Σ_rows x — the pullback of a broadcast (bias gradient). */
  sumRows(x: Data, rows: number, cols: number, out: Data, accumulate: boolean): void;
  /** y += alpha·x. */
  axpy(alpha: number, x: Data, y: Data): void;
  /** True when no entry of x is NaN or ±∞. */
  allFinite(x: Data): boolean;
  /**
   * One Adam step in place, elementwise, in PyTorch's arithmetic: p ← p·shrink, g′ = g + l2·p,
   * m ← b1·m + (1−b1)·g′, v ← b2·v + (1−b2)·g′², p ← p − step·m/(√v + epsHat).
   */
  adam(p: Data, g: Data, m: Data, v: Data, h: AdamStep): void;
  /**
   * im2col of `count` samples of x ([C,H,W] each, sample s from element xOff + s·C·H·W):
   * sample s fills columns s·Ho·Wo … of the C·kh·kw rows of col (leading dimension ld);
   * convolution is then one gemm.
   */
  im2col(g: Window, x: Data, xOff: number, count: number, col: Data, ld: number): void;
  /** The adjoint of im2col: the same samples of dx (from element xOff) += the fold of col. */
  col2im(g: Window, col: Data, ld: number, count: number, dx: Data, xOff: number): void;
  /**
   * Max over each window of g (kh×kh, stride sh, no padding) of `planes` [H,W] planes of x:
   * y [planes,Ho,Wo], and in arg the offset in x of each maximum (the first on ties; a NaN
   * takes over, as in PyTorch).
   */
  maxPool(g: Window, x: Data, planes: number, y: Data, arg: Data): void;
  /** Mean over each window of g (kh×kw, stride sh×sw, no padding) of `planes` [H,W] planes of x: y [planes,Ho,Wo]. */
  avgPool(g: Window, x: Data, planes: number, y: Data): void;
  /** Its pullback (the adjoint): dx += each dy spread evenly, dy/(kh·kw), over its window. */
  avgPoolBackward(g: Window, dy: Data, planes: number, dx: Data): void;
  /** dx[arg[i]] += dy[i]: the pullback of a selection (arg holds offsets as numbers). */
  scatterAdd(dy: Data, arg: Data, dx: Data): void;
  /**
   * y[b,a,:] = f(x[a,b,:] (+ bias[a])) for x [A,B,P]: the two leading axes swapped, in blocks
   * of P, with a bias and an activation applied on the way (a convolution's output).
   */
  swapAxes(x: Data, A: number, B: number, P: number, y: Data, bias?: Data, op?: SwapOp): void;
  /** x[i] = value. */
  fill(x: Data, value: number): void;
  /** dst[r·ldDst + j] = src[r·ldSrc + j] for r < rows, j < cols: a block of rows copied (splitting and joining samples). */
  copyRows(rows: number, cols: number, src: Data, ldSrc: number, dst: Data, ldDst: number): void;
  /** Row-wise softmax of x [rows, n] by log-sum-exp (stable for large inputs). */
  softmax(x: Data, rows: number, n: number, y: Data): void;
  /** The softmax pullback: dx = y ⊙ (dy − ⟨dy, y⟩) per row. */
  softmaxBackward(y: Data, dy: Data, rows: number, n: number, dx: Data): void;
  /**
   * A loss on predictions ŷ [rows, cols] against targets t (nn/loss.ts defines them; for
   * token-cross-entropy t holds one class id per row): grad = ∂L/∂ŷ
   * of the mean loss L, and rowLoss[r] the part of L that row r contributes (so L = Σ_r rowLoss[r]).
   */
  lossGrad(kind: LossKind, yhat: Data, t: Data, rows: number, cols: number, grad: Data, rowLoss: Data): void;
  /**
   * The predicted class of each row of y [rows, cols] as a number: the first largest entry
   * (NaN never wins); for one column, 1 when y exceeds `threshold`, else 0.
   */
  argmaxRows(y: Data, rows: number, cols: number, threshold: number, out: Data): void;
  /**
   * n zeroed float32s that this backend's kernels use where they are, without copying (for
   * buffers that live across many calls: parameters, gradients, a training arena); undefined
   * where it has no such memory. Any backend can read and write them like other arrays.
   */
  alloc?(n: number): Float32Array | undefined;
  /**
   * Memory on a device (a GPU) where this backend keeps arrays resident, for training loops
   * that run there (src/train/device-trainer.ts); absent for backends over host memory.
   */
  readonly device?: DeviceMemory;
}

/**
 * The elementwise part of one step of a gated recurrent cell, over `rows` sequences of h
 * units: what is left of the step once its matrix products are done (src/nn/recurrent: the
 * products are gemms, the gate math one pass here) — and for the LSTM every step of a sequence,
 * products included, in one call (lstmSequence, gruSequence). Gate blocks sit side by side in each row
 * in PyTorch's order. The reference is src/tensor/recurrent-kernels.ts (plain loops, any typed
 * array; the sequences as a loop over the steps calling a backend's gemm and cell kernels).
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
   * Every step of an LSTM layer over a sequence of T steps, time-major: for t = 0…T−1,
   * Z_t += H_t·W_hhᵀ and then lstmCell(Z_t, C_t → C_{t+1}, H_{t+1}), where Z_t is block t of Z
   * [T, rows, 4h] (the input projections and both biases on entry, the gates on return), H_t and
   * C_t blocks t of Hs and Cs [T + 1, rows, h] (blocks 0: the initial state) and W_hh is [4h, h].
   * One call, so that a backend can prepare W_hh once for all steps and run the rows of
   * different sequences in parallel (the wasm backend does both).
   */
  lstmSequence(rows: number, h: number, T: number, whh: Data, Z: Data, Hs: Data, Cs: Data): void;
  /**
   * Its pullback, from the gates Z and the states Cs of lstmSequence: for t = T−1…0, dh += dY_t
   * (when dY [T, rows, h] is given), lstmCellBackward(Z_t, C_t, C_{t+1}, dh, dc → dZ_t), then
   * dh = dZ_t·W_hh; after a step t > 0 that is a multiple of `bptt` (when given) dh and dc are
   * zeroed (truncated backpropagation through time). dh and dc [rows, h] hold the gradients to
   * the final state on entry and to the initial state on return; dZ [T, rows, 4h] is written.
   */
  lstmSequenceBackward(
    rows: number,
    h: number,
    T: number,
    whh: Data,
    gates: Data,
    Cs: Data,
    dY: Data | null,
    dh: Data,
    dc: Data,
    dZ: Data,
    bptt?: number,
  ): void;
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
   * Every step of a GRU layer over a sequence, time-major like lstmSequence: for t = 0…T−1,
   * HG_t = H_t·W_hhᵀ + b_hh, then gruCell(XG_t, HG_t, H_t → H_{t+1}). XG [T, rows, 3h] holds the
   * input projections x·W_ihᵀ + b_ih on entry and the gates on return, HG [T, rows, 3h] is
   * written, Hs [T + 1, rows, h] (block 0: the initial state), W_hh [3h, h], b_hh [3h].
   */
  gruSequence(rows: number, h: number, T: number, whh: Data, bhh: Data, XG: Data, HG: Data, Hs: Data): void;
  /**
   * Its pullback: for t = T−1…0, dh += dY_t (when given), gruCellBackward(XG_t, HG_t, H_t, dh →
   * dXG_t, dHG_t, with dh ⊙ z written over dh), then dh += dHG_t·W_hh; after a step t > 0 that
   * is a multiple of `bptt` (when given) dh is zeroed. dh [rows, h] holds the gradient to the
   * final state on entry and to the initial state on return.
   */
  gruSequenceBackward(
    rows: number,
    h: number,
    T: number,
    whh: Data,
    gates: Data,
    HG: Data,
    Hs: Data,
    dY: Data | null,
    dh: Data,
    dXG: Data,
    dHG: Data,
    bptt?: number,
  ): void;
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

/** The losses Backend.lossGrad computes, by their names in nn/loss.ts. */
export type LossKind = 'mse' | 'bce' | 'softmax-cross-entropy' | 'token-cross-entropy';

/**
 * Arrays resident on a device. A device array is a Float32Array *handle*: its length is the
 * array's, views of it (subarray) are views of the device array, and the backend's kernels
 * compute on the device when their arguments are such handles — but its host elements are not
 * its values: only `write` and `read` move values between host and device. Work is queued and
 * runs in order; nothing here waits except `read` and `done`, which return promises.
 */
export interface DeviceMemory {
  /** The device, for reports: e.g. "SwiftShader Device (Subzero) (vulkan)". */
  readonly label: string;
  /** True on a CPU emulation (SwiftShader): results are right, speed means nothing. */
  readonly emulated: boolean;
  /** n zeroed float32s on the device. */
  alloc(n: number): Float32Array;
  /** Whether x is (a view of) a device array. */
  holds(x: Data): boolean;
  /** Queues a copy of host values into a device array (x's elements from dst's start). */
  write(dst: Float32Array, src: Data): void;
  /** The values of a device array (or view) once the work queued before this call has run. */
  read(x: Float32Array): Promise<Float32Array>;
  /** Queues flag[0] = 0 when some entry of x is NaN or ±∞ (flag is left alone otherwise): allFinite without a readback. */
  markNonFinite(x: Float32Array, flag: Float32Array): void;
  /** Resolves once the work queued so far has run (a pacing point: no data comes back). */
  done(): Promise<void>;
}
