import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET, runCases } from '../fuzz/budget.js';
import type { Case, Outcome } from '../fuzz/budget.js';
import { chain, emptyNodes, nestedResiduals, onnxBytes } from './onnx/files.js';

/**
 * `paralens import` on hostile files (the probe of issue 29, point 3), each made here: every one
 * ends with exit 2 and one line naming what was wrong within 1 s of CPU time and 1 GiB of
 * resident memory, in a child process. Residuals nested 2,000 deep are a legitimate graph of
 * 4,000 nodes: they import (the walk is a loop, residual(…) nests 16 deep and the rest stays a
 * graph), within the 5 s every input keeps (test/fuzz/budget.ts).
 */
const LIMITS = { cpuMs: 1000, rssMiB: 1024 };
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 1.5 GB file that is a hole (zeros) after its first bytes: refused without being read whole. */
function sparse(name: string, head: Uint8Array): string {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  writeSync(fd, head, 0, head.length, 0);
  ftruncateSync(fd, 1.5 * 2 ** 30);
  closeSync(fd);
  return path;
}

const relu = (i: string, o: string) => ({ op: 'Relu', inputs: [i], outputs: [o] });
const weight = (values: number[]) => ({ W: { dims: [2, 4], values }, b: { dims: [2], values: [0, 0] } });
const gemm = { op: 'Gemm', inputs: ['x', 'W', 'b'], outputs: ['y'], attrs: { transB: 1 } };

const CASES: readonly { what: string; file: Uint8Array | string; expect: RegExp; code?: number }[] = [
  { what: 'Relu reads and writes the input x', file: onnxBytes({ nodes: [relu('x', 'x')], output: 'x' }), expect: /E_IMPORT.*'x' is written twice/ },
  {
    what: 'an Identity cycle',
    file: onnxBytes({
      nodes: [relu('x', 'r'), { op: 'Add', inputs: ['r', 'b'], outputs: ['a'] }, { op: 'Identity', inputs: ['a'], outputs: ['b'] }, relu('a', 'y')],
    }),
    expect: /E_IMPORT.*the value '[ab]' is computed from itself/,
  },
  { what: '4 MB of empty NodeProtos', file: emptyNodes(2_000_000), expect: /E_TOO_LARGE.*more than 100000 nodes/ },
  { what: '16 MB of empty NodeProtos', file: emptyNodes(8_000_000), expect: /E_TOO_LARGE.*more than 100000 nodes/ },
  { what: 'a chain of 150,000 nodes', file: chain(150_000), expect: /E_TOO_LARGE.*more than 100000 nodes/ },
  { what: 'residuals nested 2,000 deep (a legitimate graph: it imports)', file: nestedResiduals(2000), expect: /^model\s+/, code: 0 },
  { what: 'a NaN weight', file: onnxBytes({ nodes: [gemm], inits: weight([1, 2, NaN, 4, 5, 6, 7, 8]) }), expect: /E_IMPORT.*'W' holds NaN at index 2/ },
  {
    what: 'an infinite weight',
    file: onnxBytes({ nodes: [gemm], inits: weight([1, 2, 3, Infinity, 5, 6, 7, 8]) }),
    expect: /E_IMPORT.*weight 'W' holds Infinity at index 3/,
  },
  { what: 'a sparse 1.5 GB file of zeros', file: sparse('zeros.onnx', new Uint8Array(0)), expect: /E_FORMAT.*field number 0 at offset 0/ },
  {
    what: 'a sparse 1.5 GB file after a valid start',
    file: sparse('hole.onnx', onnxBytes({ nodes: [relu('x', 'y')] })),
    expect: /E_FORMAT.*not an ONNX model/,
  },
];

describe('paralens import on hostile files: exit 2 with one line, within 1 s of CPU and 1 GiB', () => {
  let outcomes: Outcome[] = [];
  beforeAll(async () => {
    // all in one child process (a fresh one after any case above 512 MiB, so that each peak is its own)
    outcomes = await runCases(
      CASES.map((c): Case => {
        const path = typeof c.file === 'string' ? c.file : '{dir}/model.onnx';
        return { argv: ['import', path, ...(c.code === 0 ? [] : ['--json'])], ...(typeof c.file === 'string' ? {} : { files: { 'model.onnx': c.file } }) };
      }),
    );
  }, 600_000);

  it.each(CASES.map((c, i) => [c.what, c, i] as const))('%s', (_what, c, i) => {
    const o = outcomes[i]!;
    expect(o.code, o.err).toBe(c.code ?? 2);
    const text = c.code === 0 ? o.out : o.out + o.err;
    expect(text).toMatch(c.expect);
    if (c.code !== 0) expect(o.err.trim().split('\n').length + o.out.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(o.cpuMs, 'CPU time').toBeLessThan(c.code === 0 ? BUDGET.cpuMs : LIMITS.cpuMs);
    expect(o.rssMiB, 'peak resident memory').toBeLessThan(LIMITS.rssMiB);
  });
});
