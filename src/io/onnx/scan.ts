import { TooLargeError } from '../../errors.js';
import { FileFormatError } from '../errors.js';

/**
 * A walk over the protobuf wire format of an ONNX ModelProto that counts what decoding would
 * build — nodes, attributes, initializers, dimensions, listed numbers, subgraph nesting — and
 * refuses a file over a limit (or not well-formed) before any object is made and, for a file on
 * disk, before it is read whole: payloads it need not look into (raw tensor data) are skipped
 * by their length, never read. The walk is a loop over an explicit stack (its depth bounded
 * here, not by the file), the message layout that of src/io/onnx/schema.ts.
 */
export const ONNX_LIMITS = {
  /** Nodes in the model, subgraphs included. */
  nodes: 100_000,
  /** Initializers in the model. */
  initializers: 100_000,
  /** Attributes of one node. */
  attributesPerNode: 256,
  /** Inputs plus outputs of one node. */
  valuesPerNode: 65_536,
  /** Dimensions of one tensor or value shape. */
  rank: 32,
  /** Numbers written out as lists (float_data, int64_data, ints, floats …), in total: more must be raw_data. */
  listed: 2 ** 22,
  /** Subgraphs within subgraphs (If's branches). */
  graphDepth: 8,
  /** protobuf's own limit on a message. */
  bytes: 2 ** 31 - 1,
} as const;

/** Random access to the bytes of a model: the whole array in memory, or a file read piece by piece. */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `position` (fewer only at the end). */
  read(position: number, length: number): Uint8Array;
}

export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: (p, n) => bytes.subarray(p, Math.min(bytes.length, p + n)) };
}

/** What the walk counted. */
export interface ScanSummary {
  readonly nodes: number;
  readonly initializers: number;
  readonly listed: number;
}

type Msg =
  'model' | 'graph' | 'node' | 'attribute' | 'tensor' | 'valueInfo' | 'type' | 'typeTensor' | 'typeSeq' | 'typeMap' | 'shape' | 'sparse' | 'entry' | 'opset';

/** Per message: the fields that are messages (walked into), and the numeric list fields (counted). */
const CHILDREN: Record<Msg, Record<number, Msg>> = {
  model: { 7: 'graph', 8: 'opset', 14: 'entry' },
  graph: { 1: 'node', 5: 'tensor', 11: 'valueInfo', 12: 'valueInfo', 13: 'valueInfo', 15: 'sparse' },
  node: { 5: 'attribute' },
  attribute: { 5: 'tensor', 6: 'graph', 10: 'tensor', 11: 'graph' },
  tensor: { 13: 'entry' },
  valueInfo: { 2: 'type' },
  type: { 1: 'typeTensor', 4: 'typeSeq', 5: 'typeMap' },
  typeTensor: { 2: 'shape' },
  typeSeq: { 1: 'type' },
  typeMap: { 2: 'type' },
  shape: {},
  sparse: { 1: 'tensor', 2: 'tensor' },
  entry: {},
  opset: {},
};
/** Numeric list fields: their element encoding (varint, 4 or 8 bytes) when packed. */
const LISTS: Partial<Record<Msg, Record<number, 'varint' | 4 | 8>>> = {
  attribute: { 7: 4, 8: 'varint' },
  tensor: { 1: 'varint', 4: 4, 5: 'varint', 7: 'varint', 10: 8, 11: 'varint' },
};
/** The dims of a tensor, and the dim entries of a shape: their counts are ranks. */
const isRankField = (m: Msg, field: number): boolean => (m === 'tensor' && field === 1) || (m === 'shape' && field === 1);

interface Frame {
  readonly msg: Msg;
  readonly end: number;
  /** Per-frame counters: attributes (node), values (node), rank (tensor, shape). */
  attributes: number;
  values: number;
  rank: number;
  graphs: number;
}

/** A reader over a ByteSource with a window of bytes kept in memory. */
class Cursor {
  private buf: Uint8Array = new Uint8Array(0);
  private base = 0;
  constructor(private readonly src: ByteSource) {}
  byte(at: number): number {
    if (at < this.base || at >= this.base + this.buf.length) {
      if (at >= this.src.size) throw new FileFormatError(`not an ONNX model: the bytes end inside a field at offset ${at}`);
      this.buf = this.src.read(at, 1 << 16);
      this.base = at;
    }
    return this.buf[at - this.base]!;
  }
  /** A varint at `at`: its value (exact below 2^53) and the offset after it. */
  varint(at: number): [number, number] {
    let v = 0,
      mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte(at + i);
      v += (b & 0x7f) * mul;
      mul *= 128;
      if (!(b & 0x80)) return [v, at + i + 1];
    }
    throw new FileFormatError(`not an ONNX model: a varint longer than 10 bytes at offset ${at}`);
  }
}

const bad = (what: string, at: number): FileFormatError => new FileFormatError(`not an ONNX model: ${what} at offset ${at}`);

/** Walks the model; throws a FileFormatError when it is not well-formed, a TooLargeError when it passes a limit. */
export function scanOnnx(src: ByteSource): ScanSummary {
  if (src.size > ONNX_LIMITS.bytes) throw new TooLargeError(`an ONNX file of ${src.size} bytes is larger than protobuf's 2 GiB limit`, { bytes: src.size });
  if (src.size === 0) throw new FileFormatError('not an ONNX model: the file is empty');
  const cur = new Cursor(src);
  const stack: Frame[] = [{ msg: 'model', end: src.size, attributes: 0, values: 0, rank: 0, graphs: 0 }];
  let nodes = 0,
    initializers = 0,
    listed = 0,
    depth = 0,
    pos = 0;
  const over = (what: string, n: number, limit: number): never => {
    throw new TooLargeError(`the ONNX model has more than ${limit} ${what} (${n} counted so far); import reads at most ${limit}`, { elements: n });
  };
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    if (pos === top.end) {
      if (top.msg === 'graph') depth--;
      stack.pop();
      continue;
    }
    if (pos > top.end) throw bad('a field runs past the end of its message', pos);
    const [tag, afterTag] = cur.varint(pos);
    const field = Math.floor(tag / 8),
      wire = tag % 8;
    if (field === 0) throw bad('field number 0', pos);
    pos = afterTag;
    const list = LISTS[top.msg]?.[field];
    if (wire === 0) {
      pos = cur.varint(pos)[1];
      if (list) listed++;
      if (isRankField(top.msg, field) && ++top.rank > ONNX_LIMITS.rank) over('dimensions in one shape', top.rank, ONNX_LIMITS.rank);
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, afterLen] = cur.varint(pos);
      pos = afterLen;
      if (pos + len > top.end) throw bad(`a field of ${len} bytes runs past the end of its message`, pos);
      const child = CHILDREN[top.msg][field];
      if (top.msg === 'node' && (field === 1 || field === 2) && ++top.values > ONNX_LIMITS.valuesPerNode)
        over('inputs and outputs in one node', top.values, ONNX_LIMITS.valuesPerNode);
      if (child) {
        if (child === 'node' && ++nodes > ONNX_LIMITS.nodes) over('nodes', nodes, ONNX_LIMITS.nodes);
        if (child === 'tensor' && top.msg === 'graph' && ++initializers > ONNX_LIMITS.initializers)
          over('initializers', initializers, ONNX_LIMITS.initializers);
        if (child === 'attribute' && ++top.attributes > ONNX_LIMITS.attributesPerNode)
          over('attributes in one node', top.attributes, ONNX_LIMITS.attributesPerNode);
        if (child === 'graph' && ++depth > ONNX_LIMITS.graphDepth) over('levels of nested subgraphs', depth, ONNX_LIMITS.graphDepth);
        if (stack.length >= 64) throw bad('messages nested more than 64 deep', pos);
        stack.push({ msg: child, end: pos + len, attributes: 0, values: 0, rank: 0, graphs: 0 });
        continue;
      }
      if (list) {
        // a packed list: count its elements without reading more than it must
        let n = 0;
        if (list === 'varint') for (let i = pos; i < pos + len; i++) n += cur.byte(i) & 0x80 ? 0 : 1;
        else n = len / list;
        listed += n;
        if (isRankField(top.msg, field) && (top.rank += n) > ONNX_LIMITS.rank) over('dimensions in one shape', top.rank, ONNX_LIMITS.rank);
      }
      pos += len;
    } else throw bad(`wire type ${wire}`, pos);
    if (listed > ONNX_LIMITS.listed) over('numbers written as lists (store tensors as raw_data)', listed, ONNX_LIMITS.listed);
  }
  if (pos !== src.size) throw bad('trailing bytes', pos);
  return { nodes, initializers, listed };
}
