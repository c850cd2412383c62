import dagre from '@dagrejs/dagre';
import { esc, r, svgDoc, textWidth } from './svg.js';
import { TICK_FONT, TITLE_FONT } from './frame.js';
import { TooLargeError } from '../errors.js';

/** A picture with more nodes and edges than this is refused: dagre's layout grows faster than linearly, and nobody reads it. */
const GRAPH_PICTURE_LIMIT = 4000;

/**
 * Layered pictures of finite graphs — the site of a network, a Hasse diagram of sieves, the
 * fibres of a stack — laid out by dagre (Sugiyama's layered method: ranks, crossing reduction,
 * coordinates; Gansner et al., "A technique for drawing directed graphs", 1993) and drawn here
 * as SVG in the house style. dagre runs synchronously in Node and in browsers with no DOM.
 */

/** How a node is drawn: its fill and edge say what kind of object it is (the legend names them). */
export type NodeStyle = 'plain' | 'star' | 'tank' | 'input' | 'output' | 'accent' | 'muted';
export type EdgeStyle = 'solid' | 'dashed' | 'accent' | 'muted';

export interface GraphNode {
  id: string;
  label: string;
  style?: NodeStyle;
  /** The cluster (a GraphCluster id) the node is drawn in. */
  parent?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  label?: string;
  style?: EdgeStyle;
}

export interface GraphCluster {
  id: string;
  label: string;
}

export interface GraphPicture {
  nodes: readonly GraphNode[];
  edges: readonly GraphEdge[];
  clusters?: readonly GraphCluster[];
}

const NODE: Record<NodeStyle, { fill: string; stroke: string; text: string; width?: number }> = {
  plain: { fill: '#eef3fb', stroke: '#2a5599', text: '#111' },
  input: { fill: '#e8f5e9', stroke: '#2e7d32', text: '#111' },
  output: { fill: '#fff3e0', stroke: '#c05600', text: '#111' },
  star: { fill: '#fde8e8', stroke: '#b71c1c', text: '#111', width: 2.2 },
  tank: { fill: '#f3e5f5', stroke: '#6a1b9a', text: '#111', width: 2.2 },
  accent: { fill: '#1f5f9a', stroke: '#0d3c66', text: '#fff' },
  muted: { fill: '#f5f5f5', stroke: '#9e9e9e', text: '#555' },
};

const EDGE: Record<EdgeStyle, { stroke: string; dash?: string; width: number }> = {
  solid: { stroke: '#333', width: 1.5 },
  dashed: { stroke: '#b06000', dash: '5 4', width: 1.5 },
  accent: { stroke: '#b71c1c', width: 2.2 },
  muted: { stroke: '#aaa', width: 1.2 },
};

/** What a legend row says for a style used in the picture. */
export interface GraphLegend {
  node?: Partial<Record<NodeStyle, string>>;
  edge?: Partial<Record<EdgeStyle, string>>;
}

/** An arrowhead at the end of the segment a → b. */
function arrowhead(a: { x: number; y: number }, b: { x: number; y: number }, colour: string): string {
  const d = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  const [ux, uy] = [(b.x - a.x) / d, (b.y - a.y) / d];
  const [bx, by] = [b.x - ux * 9, b.y - uy * 9];
  return `<polygon points="${r(b.x)},${r(b.y)} ${r(bx - uy * 4.5)},${r(by + ux * 4.5)} ${r(bx + uy * 4.5)},${r(by - ux * 4.5)}" fill="${colour}"/>`;
}

/** A smooth path through dagre's edge points (quadratic segments through the midpoints). */
function smoothPath(pts: readonly { x: number; y: number }[]): string {
  if (pts.length < 3) return `M${pts.map((p) => `${r(p.x)},${r(p.y)}`).join('L')}`;
  let d = `M${r(pts[0]!.x)},${r(pts[0]!.y)}`;
  for (let i = 1; i < pts.length - 1; i++) {
    const [p, q] = [pts[i]!, pts[i + 1]!];
    const mid = i === pts.length - 2 ? q : { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    d += `Q${r(p.x)},${r(p.y)} ${r(mid.x)},${r(mid.y)}`;
  }
  return d;
}

/**
 * Each cluster's rectangle (top-left corner) grown so that its title, written across its top
 * edge, clears the boxes of its nodes and fits its width: dagre sizes a cluster to its nodes
 * alone, so a title could sit behind the first node's box (the fibres of a stack picture).
 */
function clusterBoxes(g: GraphPicture, G: InstanceType<typeof dagre.graphlib.Graph>): { x: number; y: number; width: number; height: number; label: string }[] {
  return (g.clusters ?? []).flatMap((c) => {
    const b = G.node(c.id);
    if (!b) return [];
    const tw = textWidth(c.label, TICK_FONT) + 20;
    const width = Math.max(b.width, tw),
      x = b.x - width / 2;
    let y = b.y - b.height / 2;
    // the title's band: 24 px under the top edge, tw wide about the centre
    const [tl, tr] = [b.x - tw / 2, b.x + tw / 2];
    const clash = g.nodes
      .filter((n) => n.parent === c.id)
      .map((n) => G.node(n.id))
      .filter((n) => n.x + n.width / 2 > tl && n.x - n.width / 2 < tr)
      .reduce((most, n) => Math.max(most, y + 24 - (n.y - n.height / 2)), 0);
    y -= clash;
    return [{ x, y, width, height: b.height + clash, label: c.label }];
  });
}

/**
 * Draws a directed graph in layers: `direction` is where the edges point (RL: from right to
 * left, as the arrows of a site run against the flow of data), with optional clusters (each
 * drawn as a labelled box around its nodes) and a legend of the styles used.
 */
export function graphPicture(
  g: GraphPicture,
  opts: { title?: string; direction?: 'LR' | 'RL' | 'TB' | 'BT'; legend?: GraphLegend; rankSep?: number; nodeSep?: number } = {},
): string {
  const size = g.nodes.length + g.edges.length;
  if (size > GRAPH_PICTURE_LIMIT)
    throw new TooLargeError(
      `picture: ${g.nodes.length} nodes and ${g.edges.length} edges; a picture is drawn for at most ${GRAPH_PICTURE_LIMIT} of both together`,
      { elements: size },
    );
  const G = new dagre.graphlib.Graph({ multigraph: true, compound: Boolean(g.clusters?.length) });
  G.setGraph({ rankdir: opts.direction ?? 'LR', ranksep: opts.rankSep ?? 56, nodesep: opts.nodeSep ?? 22, edgesep: 14, marginx: 16, marginy: 16 });
  G.setDefaultEdgeLabel(() => ({}));
  for (const c of g.clusters ?? []) G.setNode(c.id, { label: c.label, clusterLabelPos: 'top', paddingTop: 26 });
  for (const n of g.nodes) {
    G.setNode(n.id, { width: Math.max(44, textWidth(n.label, 14) + 22), height: 32 });
    if (n.parent) G.setParent(n.id, n.parent);
  }
  g.edges.forEach((e, k) => {
    const label = e.label ? { label: e.label, width: textWidth(e.label, 12) + 6, height: 16, labelpos: 'c' } : {};
    G.setEdge({ v: e.from, w: e.to, name: String(k) }, { ...label, minlen: 1 });
  });
  dagre.layout(G);
  const { width: gw0 = 0, height: gh0 = 0 } = G.graph();
  const boxes = clusterBoxes(g, G);
  // the clusters grown for their titles may reach above the layout or past its right: shift and widen
  const lift = Math.max(0, ...boxes.map((b) => 8 - b.y)),
    shift = Math.max(0, ...boxes.map((b) => 8 - b.x));
  const gw = Math.max(gw0, ...boxes.map((b) => b.x + b.width + 8)) + shift,
    gh = gh0 + lift;
  const top = (opts.title ? 34 : 0) + lift;
  const parts: string[] = [];
  for (const b of boxes)
    parts.push(
      `<g class="cluster"><rect x="${r(b.x)}" y="${r(top + b.y)}" width="${r(b.width)}" height="${r(b.height)}" rx="8" fill="#fafafa" stroke="#bbb"/><text x="${r(b.x + b.width / 2)}" y="${r(top + b.y + 17)}" text-anchor="middle" font-size="${TICK_FONT}" fill="#444">${esc(b.label)}</text></g>`,
    );
  g.edges.forEach((e, k) => {
    const lay = G.edge({ v: e.from, w: e.to, name: String(k) });
    const pts = (lay?.points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y + top }));
    if (pts.length < 2) return;
    const s = EDGE[e.style ?? 'solid'];
    parts.push(
      `<g class="edge"><path d="${smoothPath(pts)}" fill="none" stroke="${s.stroke}" stroke-width="${s.width}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>${arrowhead(pts[pts.length - 2]!, pts[pts.length - 1]!, s.stroke)}`,
    );
    if (e.label && lay.x !== undefined)
      parts.push(
        `<text x="${r(lay.x)}" y="${r(lay.y + top + 4)}" text-anchor="middle" font-size="12" fill="#333" paint-order="stroke" stroke="white" stroke-width="3">${esc(e.label)}</text>`,
      );
    parts.push('</g>');
  });
  for (const n of g.nodes) {
    const b = G.node(n.id);
    const s = NODE[n.style ?? 'plain'];
    parts.push(
      `<g class="node ${n.style ?? 'plain'}"><rect x="${r(b.x - b.width / 2)}" y="${r(top + b.y - b.height / 2)}" width="${r(b.width)}" height="${r(b.height)}" rx="6" fill="${s.fill}" stroke="${s.stroke}" stroke-width="${s.width ?? 1.3}"/><text x="${r(b.x)}" y="${r(top + b.y + 5)}" text-anchor="middle" font-size="14" fill="${s.text}">${esc(n.label)}</text></g>`,
    );
  }
  // the legend: the styles the picture uses, below the graph, wrapped to its width
  const items: [string, number][] = [];
  for (const [style, text] of Object.entries(opts.legend?.node ?? {}) as [NodeStyle, string][]) {
    const s = NODE[style];
    items.push([
      `<rect x="0" y="0" width="22" height="14" rx="3" fill="${s.fill}" stroke="${s.stroke}" stroke-width="${s.width ?? 1.3}"/><text x="28" y="11.5" font-size="${TICK_FONT}">${esc(text)}</text>`,
      40 + textWidth(text, TICK_FONT),
    ]);
  }
  for (const [style, text] of Object.entries(opts.legend?.edge ?? {}) as [EdgeStyle, string][]) {
    const s = EDGE[style];
    items.push([
      `<line x1="0" x2="22" y1="7" y2="7" stroke="${s.stroke}" stroke-width="${s.width + 0.5}"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/><text x="28" y="11.5" font-size="${TICK_FONT}">${esc(text)}</text>`,
      40 + textWidth(text, TICK_FONT),
    ]);
  }
  const maxW = Math.max(gw, 380);
  const rows: string[] = [];
  let lx = 16,
    ly = top + gh + 8,
    legendW = 0;
  for (const [svg, w] of items) {
    if (lx > 16 && lx + w > maxW) {
      lx = 16;
      ly += 22;
    }
    rows.push(`<g transform="translate(${r(lx)},${r(ly)})">${svg}</g>`);
    lx += w;
    legendW = Math.max(legendW, lx);
  }
  const width = Math.max(gw, legendW + 8, opts.title ? textWidth(opts.title, TITLE_FONT) + 32 : 0);
  const height = rows.length ? ly + 26 : top + gh;
  const title = opts.title
    ? `<text x="${r(width / 2)}" y="22" text-anchor="middle" font-size="${TITLE_FONT}" font-weight="bold">${esc(opts.title)}</text>`
    : '';
  const graph = shift ? `<g transform="translate(${r(shift)},0)">${parts.join('')}</g>` : parts.join('');
  return svgDoc(width, height, `${title}${graph}${rows.join('')}`, opts.title);
}
