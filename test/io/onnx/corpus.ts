import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ParalensError, PENDING_OPERATORS, Rng, Tensor } from '../../../src/index.js';
import { importOnnx } from '../../../src/io/index.js';
import { PYTHON } from '../../peer/available.js';

/**
 * The corpus of issue 29: ordinary PyTorch models (corpus.py) written by torch.onnx.export at
 * opsets 13 and 17 with a dynamic and a fixed batch axis, each run in onnxruntime-node and
 * imported by paralens; a file agrees when every output is within 1e-5 of onnxruntime's,
 * relative to the largest. A file is counted when onnxruntime runs it.
 */
export interface FileOutcome {
  readonly file: string;
  readonly model: string;
  /** 'agrees', 'differs' (imported, outputs off), or 'refused' (the message names why). */
  readonly outcome: 'agrees' | 'differs' | 'refused';
  readonly relError?: number;
  readonly message?: string;
  readonly spec?: string;
}

export interface CorpusRun {
  readonly torch: string;
  /** Files onnxruntime runs. */
  readonly files: readonly FileOutcome[];
}

const SCRIPT = fileURLToPath(new URL('./corpus.py', import.meta.url));

/** Writes the corpus (quick: three models) into a temporary directory and runs every file in onnxruntime and paralens. */
export async function runCorpus(ort: typeof import('onnxruntime-node'), quick: boolean): Promise<CorpusRun> {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-corpus-'));
  try {
    const r = spawnSync(PYTHON, [SCRIPT, dir, ...(quick ? ['--quick'] : [])], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`corpus.py failed: ${r.stderr}`);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      torch: string;
      files: { file: string; model: string; batch: string; input: string; shape: number[]; vocab?: number; export_error?: string }[];
    };
    const files: FileOutcome[] = [];
    for (const e of manifest.files) {
      if (e.export_error) continue;
      // a fixed file runs at its batch (1), a dynamic one at another (3)
      const B = e.batch === 'fixed' ? 1 : 3;
      const n = B * e.shape.reduce((a, b) => a * b, 1);
      const rng = new Rng(1);
      const values = Array.from({ length: n }, () => (e.input === 'ids' ? rng.int(e.vocab!) : rng.normal()));
      const bytes = new Uint8Array(readFileSync(join(dir, e.file)));
      let theirs: Float32Array;
      try {
        const session = await ort.InferenceSession.create(bytes);
        const input =
          e.input === 'ids'
            ? new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [B, ...e.shape])
            : new ort.Tensor('float32', Float32Array.from(values), [B, ...e.shape]);
        theirs = (await session.run({ input })).output!.data as Float32Array;
      } catch {
        continue; // onnxruntime does not run it: not counted
      }
      try {
        const imported = importOnnx(bytes);
        const ours = imported.model.run(imported.theta, Tensor.of(values, [B, ...e.shape])).data;
        let d = ours.length === theirs.length ? 0 : Infinity,
          scale = 1e-30;
        theirs.forEach((v, i) => {
          d = Math.max(d, Math.abs(v - ours[i]!));
          scale = Math.max(scale, Math.abs(v));
        });
        const relError = d / scale;
        files.push({ file: e.file, model: e.model, outcome: relError <= 1e-5 ? 'agrees' : 'differs', relError, spec: String(imported.model) });
      } catch (err) {
        if (!(err instanceof ParalensError)) throw err;
        files.push({ file: e.file, model: e.model, outcome: 'refused', message: `${err.code}: ${err.message}` });
      }
    }
    return { torch: manifest.torch, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The operators a refusal names: those import does not read, or the one node it refuses (`ONNX node 'NAME' (OP): why`). */
export function refusedOperators(message: string): string[] {
  const m = /unsupported ONNX operators: (.*?); `paralens import --help`/.exec(message);
  if (m) return [...m[1]!.matchAll(/(?:^|, )([\w.]+) \(node/g)].map((x) => x[1]!);
  const node = /ONNX node '[^']*' \(([\w.]+)\): /.exec(message);
  return node ? [node[1]!] : [];
}

/** Whether a refusal names only operators that are not operator lenses yet (PENDING_OPERATORS). */
export const refusedForPending = (f: FileOutcome): boolean => {
  const ops = f.message ? refusedOperators(f.message) : [];
  return ops.length > 0 && ops.every((o) => Object.hasOwn(PENDING_OPERATORS, o));
};
