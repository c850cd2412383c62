// Bad input is refused at a cost bounded before anything large is built (issue 23, "Found" 1–5):
// each reproduction runs in a memory-capped child (test/fuzz/budget.ts) and must exit 2 with a
// one-line message, or succeed, well within the budget — measured in CPU time, never wall time.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/io/model-file.js';
import { encodeSafetensors } from '../../src/io/safetensors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { idxBytes } from '../data/idx-files.js';
import { expectQuickRefusal, runCases } from '../fuzz/budget.js';
import type { Case, Outcome } from '../fuzz/budget.js';

/** A model file whose metadata names `spec` (with one stand-in tensor): what a hostile file can say. */
function modelFileWithSpec(spec: string): Uint8Array {
  return encodeSafetensors([{ name: 'coef', tensor: Tensor.of([1], [1]) }], { format: 'paralens', spec, paralens_version: '0.1.0', training: '{}' });
}

/** A model file paralens itself would write. */
function realModelFile(spec: string): Uint8Array {
  const m = parseSpec(spec);
  return encodeModel(m, m.init(1));
}

const chain = (n: number): string => Array.from({ length: n }, (_, i) => `p${i}`).join('<');

/**
 * A gzip bomb in the shape of Fashion-MNIST: a few hundred kilobytes that inflate to 1.5 GB of
 * image data (gzip members concatenated: 24 × 64 MiB of zeros), with a header declaring them.
 */
function gzipBomb(): Record<string, Uint8Array> {
  const rows = (24 * 64 * 2 ** 20) / 784;
  const zeros = gzipSync(new Uint8Array(64 * 2 ** 20), { level: 1 });
  const images = Buffer.concat([gzipSync(idxBytes([Math.floor(rows), 28, 28], [])), ...Array.from({ length: 24 }, () => zeros)]);
  const labels = gzipSync(idxBytes([10], new Uint8Array(10)));
  return {
    'train-images-idx3-ubyte.gz': images,
    'train-labels-idx1-ubyte.gz': labels,
    't10k-images-idx3-ubyte.gz': images,
    't10k-labels-idx1-ubyte.gz': labels,
  };
}

const csvRows = (n: number): string => 'a,b\n' + Array.from({ length: n }, (_, i) => `${i % 7},${i % 3}`).join('\n') + '\n';

/** [what, case, allowed exit codes]: every reproduction of the issue. */
const REPRODUCTIONS: [string, Case, number[]][] = [
  // 1. model-file metadata is interpreted at a cost bounded by the file
  [
    'predict --load a 200-byte file naming equivariant(Z(2),T(64),V)',
    { argv: ['predict', '--load', '{dir}/m.safetensors', '--input', '1,2,3,4'], files: { 'm.safetensors': modelFileWithSpec('equivariant(Z(2),T(64),V)') } },
    [2],
  ],
  [
    'export --load the same file',
    { argv: ['export', '--load', '{dir}/m.safetensors', '--onnx', '{dir}/m.onnx'], files: { 'm.safetensors': modelFileWithSpec('equivariant(Z(2),T(64),V)') } },
    [2],
  ],
  // 2. short group and representation expressions
  ["derive --group 'Z(2)' --in 'T(64)' --out V", { argv: ['derive', '--group', 'Z(2)', '--in', 'T(64)', '--out', 'V'] }, [2]],
  ["derive --group 'S(4)' --in 'T(50)' --out V", { argv: ['derive', '--group', 'S(4)', '--in', 'T(50)', '--out', 'V'] }, [2]],
  ["derive --group 'S(8)' --in 'T(12)' --out V", { argv: ['derive', '--group', 'S(8)', '--in', 'T(12)', '--out', 'V'] }, [2]],
  ["end --group 'S(1000)' --in V --out V", { argv: ['end', '--group', 'S(1000)', '--in', 'V', '--out', 'V'] }, [2]],
  ["coend --hom --group 'D(4096)'", { argv: ['coend', '--hom', '--group', 'D(4096)'] }, [2]],
  ["coend --hom --group 'Trans(2,100)' (200 elements: small work, done)", { argv: ['coend', '--hom', '--group', 'Trans(2,100)', '--json'] }, [0]],
  // 3. internal errors where bad input should give exit 2
  ['draw a spec of 3000 nested parentheses', { argv: ['draw', '--model', `${'('.repeat(3000)}dense(2,2)${')'.repeat(3000)}`] }, [2]],
  [
    'predict --load a file whose spec nests 2000 residual(',
    {
      argv: ['predict', '--load', '{dir}/m.safetensors', '--input', '1,2'],
      files: { 'm.safetensors': modelFileWithSpec(`${'residual('.repeat(2000)}dense(2,2)${')'.repeat(2000)}`) },
    },
    [2],
  ],
  ['coend --hom --poset on a 400-chain', { argv: ['coend', '--hom', '--poset', chain(400), '--json'] }, [0, 2]],
  ['topos omega on a 400-chain', { argv: ['topos', 'omega', '--poset', chain(400), '--json'] }, [0, 2]],
  [
    'predict --csv with 130,000 rows',
    {
      argv: ['predict', '--load', '{dir}/m.safetensors', '--csv', '{dir}/x.csv'],
      files: { 'x.csv': csvRows(130_000), 'm.safetensors': realModelFile('dense(2,1)') },
    },
    [0, 2],
  ],
  // 4. slow paths
  ['coend --hom --poset on a 100-chain', { argv: ['coend', '--hom', '--poset', chain(100), '--json'] }, [0, 2]],
  ['topos omega on a 200-chain', { argv: ['topos', 'omega', '--poset', chain(200), '--json'] }, [0, 2]],
  ['topos site --model of 50,000 id(2)', { argv: ['topos', 'site', '--model', Array.from({ length: 50_000 }, () => 'id(2)').join(' >> '), '--json'] }, [0, 2]],
  // 5. a gzip bomb under --data-dir
  [
    'train --data fashion-mnist --data-dir (1.5 GB inflated from a few hundred KB)',
    { argv: ['train', '--model', 'dense(784,10)', '--data', 'fashion-mnist', '--data-dir', '{dir}', '--epochs', '1'], files: gzipBomb() },
    [2],
  ],
  // 6. found by the long fuzz run (2 December): a malformed representation was refused only after
  // the group's generators were built (2.8 s of CPU and 655 MiB for SO(40)xO(64)xZ(3))
  ...(['coend', 'end', 'derive'] as const).map((cmd): [string, Case, number[]] => [
    `${cmd} --group 'SO(40)xO(64)xZ(3)' with a malformed --in`,
    { argv: [cmd, '--group', 'SO(40)xO(64)xZ(3)', '--in', '\r\n', '--out', 'T(0)'] },
    [2],
  ]),
];

describe('bounded cost: every reproduction of issue 23 ends quickly, exit 2 with one line or done', () => {
  let outcomes: Outcome[] = [];
  it('runs them all in a memory-capped child', async () => {
    outcomes = await runCases(REPRODUCTIONS.map(([, c]) => c));
    expect(outcomes).toHaveLength(REPRODUCTIONS.length);
    if (process.env.PARALENS_TEST_VERBOSE) {
      REPRODUCTIONS.forEach(([what], i) =>
        console.log(
          `${what}: exit ${outcomes[i]!.code}, ${Math.round(outcomes[i]!.cpuMs)} ms CPU, ${Math.round(outcomes[i]!.rssMiB)} MiB: ${outcomes[i]!.err.trim().slice(0, 240)}`,
        ),
      );
    }
  }, 600_000);

  REPRODUCTIONS.forEach(([what, , allowed], i) => {
    it(what, () => {
      const o = outcomes[i]!;
      expectQuickRefusal(o, what);
      expect(allowed, `${what} → ${o.code}: ${o.err}`).toContain(o.code);
    });
  });
});
