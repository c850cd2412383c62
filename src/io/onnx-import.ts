import { ParalensError } from '../errors.js';
import type { Para } from '../para/para.js';
import { add, copy, discard, id, residual } from '../para/structure.js';
import { par, seq } from '../para/composite.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { parseSpec } from '../catalogue/index.js';
import { ImportError } from './errors.js';
import { decodeOnnx } from './onnx-decode.js';
import type { OnnxModel, OnnxNode } from './onnx-decode.js';
import { attentionPattern } from './onnx-import-attention.js';
import { IMPORT_RULES, STRUCTURAL_OPS } from './onnx-import-rules.js';
import type { Built, ImportRuleInput, ImportStep } from './onnx-import-rules.js';

/**
 * ONNX → Para: the operator graph read back as a composite. A chain of nodes is `>>`; a
 * value read by two nodes that meet again at an Add is a skip connection — `residual(f)`
 * when one of the two is the Add itself, `copy >> (f @ g) >> add` when both branches
 * compute (a projection shortcut); each operator becomes a layer by its rule
 * (src/io/onnx-import-rules.ts). The result is an ordinary morphism: printed as its spec,
 * drawn, trained, its pullbacks gradchecked like any other.
 */
export interface OnnxImport {
  readonly model: Para;
  readonly theta: Tensor[];
  /** The op types of the graph's nodes, in order. */
  readonly ops: readonly string[];
  readonly opset: number;
  readonly producer: string;
}

/** Where the walk is: the graph with its readers per value. */
class Walk {
  private readonly readers = new Map<string, OnnxNode[]>();
  private readonly producers = new Map<string, OnnxNode>();
  readonly output: string;
  constructor(readonly g: OnnxModel) {
    for (const n of g.nodes) for (const v of new Set(n.inputs)) if (v && !g.constants.has(v)) this.readers.set(v, [...(this.readers.get(v) ?? []), n]);
    for (const n of g.nodes) for (const v of n.outputs) this.producers.set(v, n);
    this.output = g.outputs[0]!.name;
  }
  readersOf(v: string): OnnxNode[] {
    return this.readers.get(v) ?? [];
  }
  dynamicInputs(n: OnnxNode): string[] {
    return n.inputs.filter((v) => v && !this.g.constants.has(v));
  }
  isJoin(n: OnnxNode): boolean {
    return n.op === 'Add' && this.dynamicInputs(n).length === 2;
  }
  ruleInput(node: OnnxNode, shape: Shape): ImportRuleInput {
    return {
      node,
      shape,
      constant: (name) => this.g.constants.get(name),
      only: (v) => {
        const r = this.readersOf(v);
        return r.length === 1 && v !== this.output ? r[0] : undefined;
      },
    };
  }

  /**
   * The layers from value `v` (per-sample shape `shape`) up to value `stop`, starting with
   * node `first` when given (v's other reader being a join the caller handles).
   */
  path(v: string, shape: Shape, stop: string, first?: OnnxNode): Built[] {
    const out: Built[] = [];
    let at = v,
      s = shape,
      next = first;
    while (at !== stop) {
      const readers = next ? [next] : this.readersOf(at);
      next = undefined;
      if (readers.length === 0) throw new ImportError(`the value '${at}' is read by no node and is not the output '${stop}'`);
      if (readers.length > 3)
        throw new ImportError(
          `the value '${at}' is read by ${readers.length} nodes (${readers.map((r) => r.name).join(', ')}); only chains, two-way skip connections and self-attention are read`,
        );
      const step =
        readers.length === 1
          ? this.step(readers[0]!, at, s)
          : readers.length === 2
            ? this.fork(at, s, readers as [OnnxNode, OnnxNode])
            : attentionPattern(
                { readersOf: (u) => this.readersOf(u), constant: (u) => this.g.constants.get(u), producer: (u) => this.producers.get(u) },
                at,
                s,
                readers,
              );
      for (const b of step.built) {
        const m = fixed(b.m, s, readers[0]!);
        out.push({ m, theta: b.theta });
        s = m.cod!;
      }
      at = step.out;
    }
    return out;
  }

  /** What node `n`, the one reader of value `at` (per-sample shape `s`), becomes. */
  private step(n: OnnxNode, at: string, s: Shape): ImportStep {
    if (this.isJoin(n)) throw new ImportError(`ONNX node '${n.name}' (Add) joins two paths that do not start from one value; only skip connections are read`);
    if (n.op === 'Split') return this.split(n, s);
    if (n.op === 'Concat' && n.inputs.length === 2 && n.inputs.every((u) => u === at) && axisOf(n, 1) === 1)
      return { built: [{ m: copy(s), theta: [] }], out: n.outputs[0]! };
    const rule = IMPORT_RULES[n.op];
    if (!rule)
      throw new ImportError(
        `ONNX node '${n.name}' (${n.op}) is read only as part of another pattern (a bias after MatMul, a skip join, a product); here it stands alone`,
      );
    return rule(this.ruleInput(n, s));
  }

  /**
   * Split along axis 1, a path from each part, and the node where they meet: a Concat is the
   * product f₁ @ … @ fₙ (a part nobody reads is discard), an Add of two parts is (f @ g) >> add
   * — the inverse of how src/io/onnx-rules.ts writes par, discard and add.
   */
  private split(n: OnnxNode, shape: Shape): ImportStep {
    if (axisOf(n, 0) !== 1) throw new ImportError(`ONNX node '${n.name}' (Split) splits axis ${axisOf(n, 0)}; only the first per-sample axis (1) is a product`);
    const given = this.g.constants.get(n.inputs[1] ?? '')?.ints ?? (Array.isArray(n.attrs.get('split')) ? (n.attrs.get('split') as number[]) : undefined);
    const sizes = given ?? n.outputs.map(() => shape[0]! / n.outputs.length);
    if (sizes.length !== n.outputs.length || sizes.reduce((a, b) => a + b, 0) !== shape[0])
      throw new ImportError(`ONNX node '${n.name}' (Split): sizes [${sizes.join(',')}] do not split ${shape[0]}`);
    const part = (i: number): Shape => [sizes[i]!, ...shape.slice(1)];
    const sized = (p: Shape): number | Shape => (p.length === 1 ? p[0]! : p);
    const live = n.outputs.filter((o) => this.readersOf(o).length > 0);
    if (live.length === 1) {
      // the other parts were discarded and the one left goes on alone (no Concat of one value):
      // (id @ discard …), and the walk continues along that part
      const factors = n.outputs.map((o, i) => (o === live[0] ? id(sized(part(i))) : discard(sized(part(i)))));
      return { built: [{ m: par(...factors), theta: [] }], out: live[0]! };
    }
    const ends = n.outputs.map((o) => this.chainEnd(o));
    const joins = new Set(ends.filter((e) => e.join).map((e) => e.join!));
    const join = [...joins][0];
    if (joins.size !== 1 || !join || !(join.op === 'Concat' || this.isJoin(join)))
      throw new ImportError(`ONNX node '${n.name}' (Split): its parts do not meet again at one Concat or Add`);
    const factors = n.outputs.map((o, i): Built => {
      // a part nobody reads was discarded
      if (!ends[i]!.join) return { m: discard(sized(part(i))), theta: [] };
      const fs = this.path(o, part(i), ends[i]!.end);
      return fs.length ? combine(fs, (m) => m) : { m: id(sized(part(i))), theta: [] };
    });
    const reached = ends.filter((e) => e.join).map((e) => e.end);
    if (join.op === 'Concat' && (axisOf(join, 1) !== 1 || join.inputs.join() !== reached.join()))
      throw new ImportError(`ONNX node '${join.name}' (Concat) does not join the parts of '${n.name}' in order along axis 1`);
    const product: Built = { m: par(...factors.map((f) => f.m)), theta: factors.flatMap((f) => [...f.theta]) };
    if (join.op === 'Concat') return { built: [product], out: join.outputs[0]! };
    const sum: Built = { m: halvesAdded(product.m.cod!), theta: [] };
    // (id @ id) >> add is add
    return { built: factors.every((f) => f.m.kind === 'id') ? [sum] : [product, sum], out: join.outputs[0]! };
  }

  /** Follows single-reader nodes from value v to the Concat or Add-join that reads it; `join` is null when nobody reads v. */
  private chainEnd(v: string): { end: string; join: OnnxNode | null } {
    let at = v;
    for (let guard = 0; guard <= this.g.nodes.length; guard++) {
      const r = this.readersOf(at);
      if (r.length === 0 && at === v) return { end: at, join: null };
      if (r.length !== 1) break;
      const node = r[0]!;
      if (node.op === 'Concat' || this.isJoin(node)) return { end: at, join: node };
      at = node.outputs[0]!;
    }
    throw new ImportError(`the value '${v}' (a part of a Split) does not reach a Concat or Add along a chain of single readers`);
  }

  /** The Add where the chain from node `n` meets another path, if it reaches one. */
  private joinAfter(n: OnnxNode): OnnxNode | undefined {
    let node: OnnxNode | undefined = n;
    for (let guard = 0; node && guard < this.g.nodes.length; guard++) {
      if (this.isJoin(node)) return node;
      const r = this.readersOf(node.outputs[0]!);
      node = r.length === 1 ? r[0] : undefined;
    }
    return undefined;
  }

  /** A value read twice: a residual block or a two-branch block ending at one Add. */
  private fork(v: string, shape: Shape, [a, b]: [OnnxNode, OnnxNode]): ImportStep {
    const skip = this.isJoin(a) ? a : this.isJoin(b) ? b : undefined;
    if (skip) {
      const body = skip === a ? b : a;
      const y = this.dynamicInputs(skip).find((u) => u !== v) ?? v;
      const f = this.path(v, shape, y, body);
      return { built: [combine(f, (m) => residual(m))], out: skip.outputs[0]! };
    }
    const join = this.joinAfter(a);
    if (!join || join !== this.joinAfter(b))
      throw new ImportError(`the value '${v}' is read by '${a.name}' and '${b.name}', whose paths do not meet at one Add; only skip connections are read`);
    const [ya, yb] = this.dynamicInputs(join) as [string, string];
    const fa = combine(this.path(v, shape, ya, a), (m) => m),
      fb = combine(this.path(v, shape, yb, b), (m) => m);
    const product = par(fa.m, fb.m);
    return { built: [{ m: copy(shape).then(product).then(halvesAdded(product.cod!)), theta: [...fa.theta, ...fb.theta] }], out: join.outputs[0]! };
  }
}

/** add on a doubled first axis: add(n) for vectors [2n], add([2C,…]) for images. */
const halvesAdded = (doubled: Shape): Para => (doubled.length === 1 ? add(doubled[0]! / 2) : add(doubled));

/** A node's `axis` attribute. */
const axisOf = (n: OnnxNode, fallback: number): number => {
  const a = n.attrs.get('axis');
  return typeof a === 'number' ? a : fallback;
};

/** A layer fixed to its input shape; a ShapeError becomes an ImportError naming the node. */
function fixed(m: Para, shape: Shape, n: OnnxNode): Para {
  try {
    return m.at(shape);
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
    throw new ImportError(`ONNX node '${n.name}' (${n.op}) gives ${m}, which does not take [*,${shape.join(',')}]: ${e.message}`);
  }
}

/** The layers of a path as one morphism (an identity path is id), wrapped by `wrap`. */
function combine(fs: readonly Built[], wrap: (m: Para) => Para): Built {
  if (fs.length === 0) throw new ImportError('a skip connection around nothing (x + x) is not read');
  const m = fs.length === 1 ? fs[0]!.m : seq(...fs.map((f) => f.m));
  return { m: wrap(m), theta: fs.flatMap((f) => [...f.theta]) };
}

/** Every node whose operator import has no rule for, named: the refusal lists them all. */
function unsupported(g: OnnxModel): string[] {
  const known = new Set<string>([...Object.keys(IMPORT_RULES), ...STRUCTURAL_OPS]);
  // a node that computes only constants (folded when decoded) needs no rule
  return g.nodes
    .filter((n) => !n.outputs.every((o) => g.constants.has(o)))
    .filter((n) => (n.domain && n.domain !== 'ai.onnx') || !known.has(n.op))
    .map((n) => `${n.domain ? `${n.domain}.` : ''}${n.op} (node '${n.name}')`);
}

/** Reads an ONNX model (ModelProto bytes) as a Para composite with its weights. */
export function importOnnx(bytes: Uint8Array): OnnxImport {
  const g = decodeOnnx(bytes);
  const bad = unsupported(g);
  if (bad.length)
    throw new ImportError(
      `cannot import: unsupported ONNX operators: ${bad.join(', ')}; import reads ${[...Object.keys(IMPORT_RULES), 'Add (skip connections)'].join(', ')}`,
    );
  if (g.inputs.length !== 1 || g.outputs.length !== 1)
    throw new ImportError(`cannot import: the graph has ${g.inputs.length} inputs and ${g.outputs.length} outputs; a Para morphism here has one of each`);
  const input = g.inputs[0]!;
  const shape = input.dims.slice(1);
  if (input.dims.length < 2 || !shape.every((d): d is number => typeof d === 'number' && d > 0)) {
    throw new ImportError(
      `cannot import: the input '${input.name}' has dimensions [${input.dims.join(',')}]; expected [batch, sizes…] with fixed sizes after the batch axis`,
    );
  }
  const walk = new Walk(g);
  const layers = walk.path(input.name, shape, walk.output);
  if (layers.length === 0) throw new ImportError('cannot import: the graph computes nothing (its output is its input)');
  const model = (layers.length === 1 ? layers[0]!.m : seq(...layers.map((l) => l.m))).at(shape);
  // the spec must rebuild the morphism at this input shape, as a model file needs
  try {
    parseSpec(String(model)).at(shape);
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
    throw new ImportError(
      `cannot import: the graph reads as ${model}, but that spec does not rebuild it at input [*,${shape.join(',')}] (${e.message}); two computed branches of images meeting at an Add are such a case`,
    );
  }
  return { model, theta: layers.flatMap((l) => [...l.theta]), ops: g.nodes.map((n) => n.op), opset: g.opset, producer: g.producer };
}
