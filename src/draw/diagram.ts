import type { Para } from '../para/para.js';
import { layout } from './rules.js';
import { wrapped } from './layout.js';
import type { Diagram, LayoutOptions } from './layout.js';
import { esc, r, svgDoc, textWidth } from './svg.js';

const M = 24; // margin, and the length of the outer input/output wires

/** The widest row of a diagram by default: a long composite wraps into rows (layout.ts wrapped). */
export const MAX_ROW_WIDTH = 1400;

/** The diagram of f with its outer input and output wires, offset by the margins; a long outermost composite in rows. */
export function diagramOf(f: Para, opts: LayoutOptions = {}): Diagram {
  const d =
    f.kind === 'seq'
      ? wrapped(
          [...f.children],
          f.children.map((c) => layout(c, opts)),
          opts.maxWidth ?? MAX_ROW_WIDTH,
        )
      : layout(f, opts);
  const lead = M + Math.max(20, textWidth(f.dom ? `[${f.dom.join(',')}]` : '', 10));
  const shifted: Diagram = {
    width: d.width + 2 * lead,
    height: d.height + 2 * M,
    inY: d.inY + M,
    outY: d.outY + M,
    nodes: d.nodes.map((n) => ({ ...n, x: n.x + lead, y: n.y + M })),
    wires: d.wires.map((w) => ({ ...w, points: w.points.map(([x, y]) => [x + lead, y + M] as [number, number]) })),
    frames: d.frames.map((fr) => ({ ...fr, x: fr.x + lead, y: fr.y + M })),
  };
  shifted.wires.push({
    points: [
      [4, shifted.inY],
      [lead, shifted.inY],
    ],
    label: f.dom ? `[${f.dom.join(',')}]` : '',
  });
  shifted.wires.push({
    points: [
      [lead + d.width, shifted.outY],
      [shifted.width - 4, shifted.outY],
    ],
    label: f.cod ? `[${f.cod.join(',')}]` : '',
  });
  return shifted;
}

/**
 * The string diagram of a morphism as SVG: boxes for morphisms, wires labelled with the
 * shapes they carry, parameter wires entering from above (the Para picture), products
 * stacked, copy/add as dots, residuals as a wire around the box, named composites
 * (transformer) as a dashed frame around their expansion, attention with its heads side by side.
 */
export function stringDiagram(f: Para, title = String(f), opts: LayoutOptions = {}): string {
  const d = diagramOf(f, opts);
  const parts: string[] = [];
  for (const fr of d.frames) {
    parts.push(
      `<g class="frame"><rect x="${r(fr.x)}" y="${r(fr.y)}" width="${r(fr.w)}" height="${r(fr.h)}" rx="6" fill="none" stroke="#888" stroke-dasharray="6 4"/><text x="${r(fr.x + 6)}" y="${r(fr.y + 12)}" font-size="10" fill="#555">${esc(fr.label)}</text></g>`,
    );
  }
  for (const w of d.wires) {
    const pts = w.points.map(([x, y]) => `${r(x)},${r(y)}`).join(' ');
    parts.push(
      `<polyline class="wire${w.param ? ' param' : ''}" points="${pts}" fill="none" stroke="${w.param ? '#b06000' : '#333'}" stroke-width="1.4"${w.param ? ' stroke-dasharray="4 3"' : ''}/>`,
    );
    if (w.label) {
      const [x1, y1] = w.points[0]!;
      const [x2, y2] = w.points[w.points.length - 1]!;
      if (w.param) parts.push(`<text x="${r(x1)}" y="${r(y1 - 3)}" font-size="10" text-anchor="middle" fill="#b06000">${esc(w.label)}</text>`);
      else if (w.points.length > 2) {
        // a bent wire (the skip of a residual): label its middle segment, below it
        const [[ax, ay], [bx]] = [w.points[1]!, w.points[2]!];
        parts.push(`<text x="${r((ax + bx) / 2)}" y="${r(ay + 12)}" font-size="10" text-anchor="middle" fill="#555">${esc(w.label)}</text>`);
      } else parts.push(`<text x="${r((x1 + x2) / 2)}" y="${r(Math.min(y1, y2) - 4)}" font-size="10" text-anchor="middle" fill="#555">${esc(w.label)}</text>`);
    }
  }
  for (const n of d.nodes) {
    if (n.kind === 'box') {
      parts.push(
        `<g class="box"><rect x="${r(n.x)}" y="${r(n.y)}" width="${r(n.w)}" height="${r(n.h)}" rx="4" fill="#eef3fb" stroke="#2a5599"/><text x="${r(n.x + n.w / 2)}" y="${r(n.y + n.h / 2 + 4)}" text-anchor="middle">${esc(n.label)}</text></g>`,
      );
    } else {
      const cx = n.x + n.w / 2,
        cy = n.y + n.h / 2;
      parts.push(
        `<g class="dot ${n.kind}"><circle cx="${r(cx)}" cy="${r(cy)}" r="${r(n.w / 2)}" fill="${n.kind === 'add' ? 'white' : '#333'}" stroke="#333"/>${n.kind === 'add' ? `<text x="${r(cx)}" y="${r(cy + 4)}" text-anchor="middle" font-size="11">+</text>` : ''}</g>`,
      );
    }
  }
  return svgDoc(d.width, d.height, parts.join(''), title);
}
