import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET, QUICK_CPU_MS, runCases } from '../fuzz/budget.js';
import type { Case, Outcome } from '../fuzz/budget.js';
import { hostileCases } from './onnx/hostile.js';

/**
 * `paralens import` on hostile files (the probe of issue 29, point 3), each made here: every one
 * ends with exit 2 and one line naming what was wrong within 1 s of CPU time and 1 GiB of
 * resident memory, in a child process. Residuals nested 2,000 deep are a legitimate graph of
 * 4,000 nodes: they import (the walk is a loop, residual(…) nests 16 deep and the rest stays a
 * graph), within the 5 s every input keeps (test/fuzz/budget.ts).
 */
const LIMITS = { rssMiB: 1024 };
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CASES = hostileCases(dir);

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
    expect(o.cpuMs, 'CPU time').toBeLessThan(c.code === 0 ? BUDGET.cpuMs : QUICK_CPU_MS);
    expect(o.rssMiB, 'peak resident memory').toBeLessThan(LIMITS.rssMiB);
  });
});
