import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParalensError } from '../../src/index.js';
import { importOnnx } from '../../src/io/index.js';
import { readOnnxFile } from '../../src/io/onnx/node-read.js';
import { hostileCases } from './onnx/hostile.js';

/**
 * The hostile files of issue 29 (point 3), read in this process: each refused with the error
 * that names what is wrong (or, the 2,000-deep residuals, imported). The full tier runs the same
 * files through the CLI in a child process, bounding CPU time and memory
 * (onnx-hostile.full.test.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('import on hostile files, in process', () => {
  it.each(hostileCases(dir).map((c) => [c.what, c] as const))('%s', (_what, c) => {
    const read = (): unknown => importOnnx(typeof c.file === 'string' ? readOnnxFile(c.file) : c.file);
    if (c.code === 0) {
      expect(String((read() as { model: unknown }).model)).toMatch(/^residual\(relu >> residual\(/);
      return;
    }
    let error: unknown;
    try {
      read();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ParalensError);
    const e = error as ParalensError;
    expect(`${e.code} ${e.message}`).toMatch(c.expect);
  });
});
