import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { textWidth } from './svg.js';
import { attentionCausal, parsePosition } from '../nn/attention-position.js';
import type { Diagram, Frame, Node, Wire } from './diagram-types.js';

export type { Diagram, Frame, Node, Wire } from './diagram-types.js';

const GAP = 46; // horizontal room for a labelled wire between boxes
const PAD = 14; // vertical gap between factors of a product
const PARAM = 26; // room above a box for its parameter wire
const DOT = 10;

const shapeLabel = (s: Shape | undefined): string => (s ? `[${s.join(',')}]` : '');

function shift(d: Diagram, dx: number, dy: number): Diagram {
  return {
    ...d,
    inY: d.inY + dy,
    outY: d.outY + dy,
    nodes: d.nodes.map((n) => ({ ...n, x: n.x + dx, y: n.y + dy })),
    wires: d.wires.map((w) => ({ ...w, points: w.points.map(([x, y]) => [x + dx, y + dy] as [number, number]) })),
    frames: d.frames.map((f) => ({ ...f, x: f.x + dx, y: f.y + dy })),
  };
}

/** The identity: a bare wire. */
export function wire(): Diagram {
  return {
    width: GAP / 2,
    height: 20,
    nodes: [],
    wires: [
      {
        points: [
          [0, 10],
          [GAP / 2, 10],
        ],
        label: '',
      },
    ],
    frames: [],
    inY: 10,
    outY: 10,
  };
}

/** copy, add and discard: a dot (add's with a + in it). */
export function dot(kind: 'copy' | 'add' | 'discard'): Diagram {
  const n: Node = { kind, label: kind === 'add' ? '+' : '', x: 0, y: PARAM, w: DOT, h: DOT, params: [] };
  return { width: DOT, height: PARAM + DOT, nodes: [n], wires: [], frames: [], inY: PARAM + DOT / 2, outY: PARAM + DOT / 2 };
}

/** A layer as one box labelled with its spec string, its parameters entering from above. */
export function layerBox(f: Para): Diagram {
  return box(
    String(f),
    f.params.map((p) => `${p.name} [${p.shape.join(',')}]`),
  );
}

/** A box labelled `label` with its parameter wire (when it has parameters). */
export function box(label: string, params: string[]): Diagram {
  const w = Math.max(48, textWidth(label) + 20, textWidth(params.join(', '), 10) + 8);
  const h = 34;
  const top = params.length ? PARAM : 8;
  const node: Node = { kind: 'box', label, x: 0, y: top, w, h, params };
  const wires: Wire[] = params.length
    ? [
        {
          points: [
            [w / 2, 12],
            [w / 2, top],
          ],
          label: params.join(', '),
          param: true,
        },
      ]
    : [];
  return { width: w, height: top + h, nodes: [node], wires, frames: [], inY: top + h / 2, outY: top + h / 2 };
}

/** Sequential composite: factors side by side, joined by wires labelled with the shape between them. */
export function sequential(parts: Para[], layouts: Diagram[]): Diagram {
  return sequentialWith(
    layouts.map((_, i) => (i === 0 ? '' : shapeLabel(parts[i]!.dom ?? parts[i - 1]!.cod))),
    layouts,
  );
}

/** Vertical room between two rows of a wrapped composite: the returning wire runs in its middle. */
const ROW_GAP = 36;

/**
 * A long sequential composite in rows no wider than `maxWidth` (a factor wider than that has a
 * row of its own), read like text: each row's output wire runs right, down between the rows,
 * back left and into the next row, labelled with its shape where it enters. The last row's
 * output wire is carried to the right edge. A composite that fits is `sequential`'s one row.
 */
export function wrapped(parts: Para[], layouts: Diagram[], maxWidth: number): Diagram {
  const one = sequential(parts, layouts);
  if (one.width <= maxWidth || layouts.length < 2) return one;
  const rows: number[][] = [[]];
  let w = 0;
  layouts.forEach((d, i) => {
    const row = rows[rows.length - 1]!;
    if (row.length && w + GAP + d.width > maxWidth) {
      rows.push([i]);
      w = d.width;
    } else {
      row.push(i);
      w += (row.length > 1 ? GAP : 0) + d.width;
    }
  });
  const laid = rows.map((ix) =>
    sequential(
      ix.map((i) => parts[i]!),
      ix.map((i) => layouts[i]!),
    ),
  );
  const width = laid.reduce((m, d) => Math.max(m, d.width), 0);
  const nodes: Node[] = [];
  const wires: Wire[] = [];
  const frames: Frame[] = [];
  let y = 0;
  let prev: { x: number; y: number } | undefined;
  laid.forEach((row, k) => {
    const placed = shift(row, 0, y);
    for (const n of placed.nodes) nodes.push(n);
    for (const w of placed.wires) wires.push(w);
    for (const f of placed.frames) frames.push(f);
    if (prev) {
      // right, down into the gap above this row, left past its start, down to its input, in
      const back = y - ROW_GAP / 2;
      const first = rows[k]![0]!;
      wires.push({
        points: [
          [prev.x, prev.y],
          [prev.x + GAP / 4, prev.y],
          [prev.x + GAP / 4, back],
          [-GAP / 2, back],
          [-GAP / 2, placed.inY],
        ],
        label: '',
      });
      wires.push({
        points: [
          [-GAP / 2, placed.inY],
          [0, placed.inY],
        ],
        label: shapeLabel(parts[first]!.dom ?? parts[first - 1]!.cod),
      });
    }
    prev = { x: row.width, y: placed.outY };
    y += row.height + ROW_GAP;
  });
  if (prev!.x < width)
    wires.push({
      points: [
        [prev!.x, prev!.y],
        [width, prev!.y],
      ],
      label: '',
    });
  return { width, height: y - ROW_GAP, nodes, wires, frames, inY: laid[0]!.inY, outY: prev!.y };
}

/** Diagrams side by side; labels[i] names the wire into the i-th (labels[0] is unused). */
function sequentialWith(labels: string[], layouts: Diagram[]): Diagram {
  // loops, not Math.max(...) or push(...): a composite of 10⁵ factors would overflow the stack
  const above = layouts.reduce((m, d) => Math.max(m, d.inY), -Infinity);
  const nodes: Node[] = [];
  const wires: Wire[] = [];
  const frames: Frame[] = [];
  let x = 0;
  let height = 0;
  let prevOut: [number, number] | undefined;
  layouts.forEach((d, i) => {
    const placed = shift(d, x, above - d.inY);
    for (const n of placed.nodes) nodes.push(n);
    for (const w of placed.wires) wires.push(w);
    for (const f of placed.frames) frames.push(f);
    if (prevOut) wires.push({ points: [prevOut, [x, placed.inY]], label: labels[i]! });
    prevOut = [x + d.width, placed.outY];
    x += d.width + (i < layouts.length - 1 ? GAP : 0);
    height = Math.max(height, placed.height + (above - d.inY));
  });
  return { width: x, height, nodes, wires, frames, inY: above, outY: prevOut![1] };
}

/** Monoidal product: factors stacked, fed from a split of the input wire and joined into the output wire. */
export function parallel(layouts: Diagram[]): Diagram {
  const inner = layouts.reduce((m, d) => Math.max(m, d.width), -Infinity);
  const stub = 18;
  const nodes: Node[] = [];
  const wires: Wire[] = [];
  const frames: Frame[] = [];
  let y = 0;
  const ins: number[] = [],
    outs: number[] = [];
  layouts.forEach((d, i) => {
    const placed = shift(d, stub, y);
    for (const n of placed.nodes) nodes.push(n);
    for (const w of placed.wires) wires.push(w);
    for (const f of placed.frames) frames.push(f);
    if (d.width < inner)
      wires.push({
        points: [
          [stub + d.width, placed.outY],
          [stub + inner, placed.outY],
        ],
        label: '',
      });
    ins.push(placed.inY);
    outs.push(placed.outY);
    y += d.height + (i < layouts.length - 1 ? PAD : 0);
  });
  const mid = (ins[0]! + ins[ins.length - 1]!) / 2;
  const midOut = (outs[0]! + outs[outs.length - 1]!) / 2;
  ins.forEach((yy) =>
    wires.push({
      points: [
        [0, mid],
        [stub / 2, yy],
        [stub, yy],
      ],
      label: '',
    }),
  );
  outs.forEach((yy) =>
    wires.push({
      points: [
        [stub + inner, yy],
        [stub + inner + stub / 2, yy],
        [2 * stub + inner, midOut],
      ],
      label: '',
    }),
  );
  return { width: inner + 2 * stub, height: y, nodes, wires, frames, inY: mid, outY: midOut };
}

/** Residual x ↦ x + f(x): a copy dot, f, and an add dot, with the skip wire drawn around below f. */
export function residualLayout(f: Para, body: Diagram): Diagram {
  const copyNode: Node = { kind: 'copy', label: '', x: 0, y: body.inY - DOT / 2, w: DOT, h: DOT, params: [] };
  const placed = shift(body, DOT + GAP / 2, 0);
  const ax = DOT + GAP / 2 + body.width + GAP / 2;
  const addNode: Node = { kind: 'add', label: '+', x: ax, y: body.outY - DOT / 2, w: DOT, h: DOT, params: [] };
  const below = body.height + PAD;
  const wires: Wire[] = [
    ...placed.wires,
    {
      points: [
        [DOT, body.inY],
        [DOT + GAP / 2, placed.inY],
      ],
      label: shapeLabel(f.dom),
    },
    {
      points: [
        [DOT + GAP / 2 + body.width, placed.outY],
        [ax, body.outY],
      ],
      label: '',
    },
    {
      points: [
        [DOT / 2, body.inY + DOT / 2],
        [DOT / 2, below],
        [ax + DOT / 2, below],
        [ax + DOT / 2, body.outY + DOT / 2],
      ],
      label: 'skip',
    },
  ];
  return { width: ax + DOT, height: below + 6, nodes: [copyNode, ...placed.nodes, addNode], wires, frames: placed.frames, inY: body.inY, outY: body.outY };
}

/** A named composite (Defined: transformer(…)): its expansion inside a dashed frame that carries the name. */
export function framed(label: string, body: Diagram): Diagram {
  const m = 8,
    top = 18;
  const placed = shift(body, m, top);
  const w = Math.max(body.width + 2 * m, textWidth(label, 10) + 2 * m);
  return {
    ...placed,
    width: w,
    height: body.height + top + m,
    frames: [{ label, x: 0, y: 0, w, h: body.height + top + m }, ...placed.frames],
  };
}

/** The most heads drawn one by one; more are drawn as the first and last with a count between. */
const MAX_HEADS = 6;

/**
 * attention(d,heads,pos): the query/key/value projections, then the heads side by side — each
 * softmax(q_h k_hᵀ/√dh + position)·v_h on its d/heads features — then the output projection.
 */
export function attentionLayout(f: Para): Diagram {
  const [d, heads, pos] = f.args as [number, number, string];
  const params = (names: string[]) => f.params.filter((p) => names.includes(p.name)).map((p) => `${p.name} [${p.shape.join(',')}]`);
  // on a point cloud: the derived coefficient network, scores and values, and the update of each point
  if (typeof d !== 'number')
    return box(`${f}: invariants → coefficients → softmax over the other points → values (scalars, vectors) → update`, params(['w1', 'w2', 'wo', 'n1', 'n2']));
  const dh = d / heads,
    T = f.dom?.[0];
  const open = !attentionCausal(parsePosition(pos, String(f)), f.args[3]);
  const head = (h: number): Diagram =>
    box(`head ${h}: softmax(q·kᵀ/√${dh}${pos === 'none' ? '' : ` + ${pos.replace(/\(.*/, '')}`})·v${open ? '' : ', causal'}`, []);
  const shown = heads <= MAX_HEADS ? Array.from({ length: heads }, (_, h) => head(h + 1)) : [head(1), box(`… ${heads - 2} more heads …`, []), head(heads)];
  const perHead = `[${T ?? '·'},${dh}]`;
  return sequentialWith(
    ['', perHead, T === undefined ? '' : `[${T},${d}]`],
    [
      box('q = x·W_qᵀ, k = x·W_kᵀ, v = x·W_vᵀ', params(['wq', 'wk', 'wv', 'position', 'distance_bias', 'kernel'])),
      parallel(shown),
      box('·W_oᵀ', params(['wo'])),
    ],
  );
}

/** How to draw: `unroll` draws each recurrent layer as its unrolled composite over that many steps, instead of its algebra's loop. */
export interface LayoutOptions {
  readonly unroll?: number;
  /** The widest a row of the outermost composite may be before it wraps into rows (diagramOf; default 1400 px). */
  readonly maxWidth?: number;
}
