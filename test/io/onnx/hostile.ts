import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { chain, emptyNodes, nestedResiduals, onnxBytes } from './files.js';

/**
 * The hostile files of issue 29's probe (point 3), made here: what each is, the file (bytes, or
 * the path of a sparse file made in `dir`), the message import must end with, and its exit code
 * (2, or 0 for a legitimate graph however deep).
 */
export interface HostileCase {
  readonly what: string;
  readonly file: Uint8Array | string;
  readonly expect: RegExp;
  readonly code?: number;
}

/** A 1.5 GB file that is a hole (zeros) after its first bytes: refused without being read whole. */
function sparse(dir: string, name: string, head: Uint8Array): string {
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

export function hostileCases(dir: string): readonly HostileCase[] {
  return [
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
    { what: 'a sparse 1.5 GB file of zeros', file: sparse(dir, 'zeros.onnx', new Uint8Array(0)), expect: /E_FORMAT.*field number 0 at offset 0/ },
    {
      what: 'a sparse 1.5 GB file after a valid start',
      file: sparse(dir, 'hole.onnx', onnxBytes({ nodes: [relu('x', 'y')] })),
      expect: /E_FORMAT.*not an ONNX model/,
    },
  ];
}
