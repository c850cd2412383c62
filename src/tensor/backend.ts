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

/** The activations Backend.swapAxes applies (those a layer can fuse: FusableOp in src/para/category.ts). */
export type SwapOp = 'identity' | 'relu' | 'sigmoid' | 'tanh' | 'exp';

/** Elementwise functions that kernels know by name (so a backend can fuse them). */
export type UnaryOp = 'identity' | 'sigmoid' | 'tanh' | 'relu' | 'gelu' | 'softplus' | 'exp' | 'neg' | 'square';

/**
 * The kernels behind every tensor operation. Arrays are row-major and contiguous; pass
 * `subarray` views for offsets. Every kernel works on Float32Array and Float64Array
 * (a backend may hand float64 to the reference backend).
 *
 * The reference implementation is `jsBackend`; a fast backend must agree with it within
 * float32 tolerance (the backend test suite runs against every registered backend).
 */
export interface Backend {
  readonly name: string;
  /**
   * C (m×n) = op(A)·op(B), plus C's old value when `accumulate`.
   * op(A) is m×k: A is stored m×k, or k×m when `transA`. op(B) is k×n: B is stored k×n, or n×k when `transB`.
   */
  gemm(transA: boolean, transB: boolean, m: number, n: number, k: number, a: Data, b: Data, c: Data, accumulate: boolean): void;
  /**
   * For every (o, i) of a count[0] × count[1] batch: C(o,i) (m×n) = op(A(o,i))·op(B(o,i)),
   * plus its old value when `accumulate` (the transposes and sizes as in gemm).
   */
  gemmBatched(transA: boolean, transB: boolean, m: number, n: number, k: number, a: MatrixBatch, b: MatrixBatch, c: MatrixBatch, count: readonly [number, number], accumulate: boolean): void;
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
   * Normalisation of `rows` rows of d features: x̂ = (x − μ)·r with r = 1/√(σ² + eps) (layernorm),
   * or, when not `centre`, x̂ = x·r with r = 1/√(mean(x²) + eps) (rmsnorm); y = g ⊙ x̂ (+ b when
   * given). Writes y, x̂ and r (one per row) for the pullback.
   */
  layerNorm(x: Data, rows: number, d: number, g: Data, b: Data | undefined, eps: number, centre: boolean, y: Data, xhat: Data, r: Data): void;
  /**
   * Its pullback, with ĝ = dy ⊙ g: dx = (ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂))·r (no mean(ĝ) when not
   * `centre`), dg += Σ_rows dy ⊙ x̂, db += Σ_rows dy; each output skipped when absent.
   */
  layerNormBackward(dy: Data, xhat: Data, r: Data, rows: number, d: number, g: Data, centre: boolean, dx: Data | undefined, dg: Data | undefined, db: Data | undefined): void;
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
  /** dx[arg[i]] += dy[i]: the pullback of a selection (arg holds offsets as numbers). */
  scatterAdd(dy: Data, arg: Data, dx: Data): void;
  /**
   * y[b,a,:] = f(x[a,b,:] (+ bias[a])) for x [A,B,P]: the two leading axes swapped, in blocks
   * of P, with a bias and an activation applied on the way (a convolution's output).
   */
  swapAxes(x: Data, A: number, B: number, P: number, y: Data, bias?: Data, op?: SwapOp): void;
  /**
   * n zeroed float32s that this backend's kernels use where they are, without copying (for
   * buffers that live across many calls: parameters, gradients, a training arena); undefined
   * where it has no such memory. Any backend can read and write them like other arrays.
   */
  alloc?(n: number): Float32Array | undefined;
}
