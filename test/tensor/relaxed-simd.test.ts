// The relaxed-SIMD kernels (f32x4.relaxed_madd) cannot load in this test process on Node 20
// without --experimental-wasm-relaxed-simd, so they run in a child Node that has the flag,
// straight from the generated module, and are compared here with the float64 product.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { applyUnary } from '../../src/tensor/js-backend.js';
import { naiveGemm, UNARY_OPS } from './backend-suite.js';

const generated = fileURLToPath(new URL('../../src/tensor/wasm/modules.generated.ts', import.meta.url));
const M = 37,
  N = 45,
  K = 300;
const input = (i: number, s: number): number => Math.fround(Math.sin(i * s + s));

const CHILD = `
import { readFileSync } from 'node:fs';
const src = readFileSync(${JSON.stringify(generated)}, 'utf8');
const bytes = Buffer.from(/\\brelaxed: '([^']+)'/.exec(src)[1], 'base64');
if (!WebAssembly.validate(bytes)) { console.log(JSON.stringify({ unsupported: true })); process.exit(0); }
const memory = new WebAssembly.Memory({ initial: 128, maximum: 32768 });
const e = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports;
const f = new Float32Array(memory.buffer);
const work = 65536, A = work + e.gemmWorkBytes(), B = A + ${M * K} * 4, C = B + ${K * N} * 4;
const input = ${input.toString()};
for (let i = 0; i < ${M * K}; i++) f[A / 4 + i] = input(i, 0.37);
for (let i = 0; i < ${K * N}; i++) f[B / 4 + i] = input(i, 0.91);
const gemm = [];
for (const [tA, tB] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
  e.gemm(tA, tB, ${M}, ${N}, ${K}, A, tA ? ${M} : ${K}, B, tB ? ${K} : ${N}, C, ${N}, 0, work);
  gemm.push(Array.from(f.subarray(C / 4, C / 4 + ${M * N})));
}
const unary = [];
for (let op = 0; op < 9; op++) {
  for (let i = 0; i < 101; i++) f[A / 4 + i] = (i - 50) / 5;
  e.unary(op, A, C, 101);
  unary.push(Array.from(f.subarray(C / 4, C / 4 + 101)));
}
console.log(JSON.stringify({ gemm, unary }));
`;

describe('relaxed-SIMD kernels (child process with --experimental-wasm-relaxed-simd)', () => {
  it('gemm in all four transpose variants and every unary op agree with float64', (ctx) => {
    const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--input-type=module', '-e', CHILD], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { unsupported?: boolean; gemm: number[][]; unary: number[][] };
    if (out.unsupported) ctx.skip('this Node has no relaxed SIMD even behind the flag');
    const a = Array.from({ length: M * K }, (_, i) => input(i, 0.37)),
      b = Array.from({ length: K * N }, (_, i) => input(i, 0.91));
    [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ].forEach(([tA, tB], v) => {
      const { c, mag } = naiveGemm(tA!, tB!, M, N, K, a, b);
      out.gemm[v]!.forEach((got, i) => expect(Math.abs(got - c[i]!)).toBeLessThanOrEqual((K + 2) * 2 ** -23 * mag[i]!));
    });
    UNARY_OPS.forEach((op, o) => {
      out.unary[o]!.forEach((got, i) => {
        const want = applyUnary(op, (i - 50) / 5);
        expect(Math.abs(got - want)).toBeLessThanOrEqual(4e-6 * Math.abs(want) + 4e-7);
      });
    });
  });
});
