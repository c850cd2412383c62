import { mapColour } from './colour.js';
import type { ColourMap } from './colour.js';
import { pngDataUrl } from './png.js';
import { esc, r, svgDoc, textWidth } from './svg.js';
import { linearTicks, logTicks } from './ticks.js';
import type { Tick } from './ticks.js';

/**
 * The frame every plot is drawn in: a plot area sized to what is around it (tick labels, axis
 * names, a legend or colour bar to the right, outside the data), axes with ticks in any range,
 * light grid lines, and the title. Plots add their marks inside and call `svg`.
 */

const FONT = 14,
  WIDTH = 560,
  HEIGHT = 360;
export const TICK_FONT = 13,
  TITLE_FONT = 16;

export interface Axis {
  lo: number;
  hi: number;
  label: string;
  log?: boolean;
}

/** One legend row: a line, a dot, a filled band, or a cross. */
export interface LegendEntry {
  name: string;
  colour: string;
  kind: 'line' | 'point' | 'band' | 'cross';
  dash?: string;
}

/** A colour bar: the map, its range and what the colour means. */
export interface ColourBar {
  map: ColourMap;
  lo: number;
  hi: number;
  label: string;
  pale?: boolean;
  /** A logarithmic scale (lo > 0): for values over decades, where one large value would leave the rest at the pale end. */
  log?: boolean;
}

/** Where v falls on the bar's scale, 0 at lo and 1 at hi (not clamped; on a log bar, v ≤ 0 is −∞). */
export function barPosition(c: ColourBar, v: number): number {
  if (c.log) return (Math.log10(v) - Math.log10(c.lo)) / (Math.log10(c.hi) - Math.log10(c.lo) || 1);
  return (v - c.lo) / (c.hi - c.lo || 1);
}

const barTicks = (c: ColourBar): Tick[] => (c.log ? logTicks(c.lo, c.hi, 5) : linearTicks(c.lo, c.hi, 5));

export interface Frame {
  /** Data → pixel. */
  sx(x: number): number;
  sy(y: number): number;
  /** The plot area in pixels. */
  area: { x: number; y: number; w: number; h: number };
  /** The finished SVG with `marks` drawn over the grid and under the axes' frame. */
  svg(marks: string): string;
}

/** Ticks of an axis (log axes need lo > 0). */
const axisTicks = (a: Axis, target = 6): Tick[] => (a.log ? logTicks(a.lo, a.hi, target) : linearTicks(a.lo, a.hi, target));

/** Pads a data range by a fraction of its span (in log space for log axes), so lines do not run into the frame. */
export function padded(lo: number, hi: number, log = false, frac = 0.05): [number, number] {
  if (log) {
    const a = Math.log10(lo),
      b = Math.log10(hi),
      d = (b - a) * frac || 0.05;
    return [Math.pow(10, a - d), Math.pow(10, b + d)];
  }
  const d = (hi - lo) * frac || Math.abs(hi) * 0.1 || 1;
  return [lo - d, hi + d];
}

function legendWidth(entries: readonly LegendEntry[]): number {
  return entries.length ? 34 + Math.max(...entries.map((e) => textWidth(e.name, TICK_FONT))) : 0;
}

function legendSvg(entries: readonly LegendEntry[], x: number, y: number): string {
  return entries
    .map((e, i) => {
      const cy = y + 10 + i * 20;
      const mark =
        e.kind === 'line'
          ? `<line x1="${r(x)}" x2="${r(x + 22)}" y1="${r(cy)}" y2="${r(cy)}" stroke="${e.colour}" stroke-width="2.5"${e.dash ? ` stroke-dasharray="${e.dash}"` : ''}/>`
          : e.kind === 'band'
            ? `<rect x="${r(x)}" y="${r(cy - 6)}" width="22" height="12" fill="${e.colour}" fill-opacity="0.25" stroke="${e.colour}" stroke-opacity="0.5"/>`
            : e.kind === 'cross'
              ? `<path d="M${r(x + 5)},${r(cy)}h12M${r(x + 11)},${r(cy - 6)}v12" stroke="${e.colour}" stroke-width="3"/>`
              : `<circle cx="${r(x + 11)}" cy="${r(cy)}" r="5" fill="${e.colour}" stroke="white" stroke-width="1.2"/>`;
      return `<g class="legend-entry">${mark}<text x="${r(x + 30)}" y="${r(cy + 4.5)}" font-size="${TICK_FONT}">${esc(e.name)}</text></g>`;
    })
    .join('');
}

/** A vertical colour bar at (x, y) of height h, with ticks and its label (an image, so no seams). */
export function colourBarSvg(c: ColourBar, x: number, y: number, h: number): string {
  const n = 64,
    rgb = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) rgb.set(mapColour(c.map, 1 - i / (n - 1), c.pale), 3 * i);
  const sy = (v: number): number => y + h - barPosition(c, v) * h;
  const ticks = barTicks(c)
    .map(
      (t) =>
        `<line x1="${r(x + 14)}" x2="${r(x + 18)}" y1="${r(sy(t.value))}" y2="${r(sy(t.value))}" stroke="#444"/><text x="${r(x + 21)}" y="${r(sy(t.value) + 4.5)}" font-size="${TICK_FONT}">${t.label}</text>`,
    )
    .join('');
  const tx = x + 26 + Math.max(...barTicks(c).map((t) => textWidth(t.label, TICK_FONT))) + 10;
  return `<g class="colour-bar"><image x="${r(x)}" y="${r(y)}" width="14" height="${r(h)}" preserveAspectRatio="none" href="${pngDataUrl(1, n, rgb)}"/><rect x="${r(x)}" y="${r(y)}" width="14" height="${r(h)}" fill="none" stroke="#444"/>${ticks}<text x="${r(tx)}" y="${r(y + h / 2)}" text-anchor="middle" font-size="${FONT}" transform="rotate(-90 ${r(tx)} ${r(y + h / 2)})">${esc(c.label)}</text></g>`;
}

export function colourBarWidth(c: ColourBar): number {
  return 26 + Math.max(...barTicks(c).map((t) => textWidth(t.label, TICK_FONT))) + 24;
}

/** Lays out a frame for axes x and y with an optional legend or colour bar to the right of the data. */
export function frame(opts: {
  title?: string;
  x: Axis;
  y: Axis;
  legend?: readonly LegendEntry[];
  colourBar?: ColourBar;
  width?: number;
  height?: number;
  grid?: boolean;
}): Frame {
  const width = opts.width ?? WIDTH,
    height = opts.height ?? HEIGHT;
  const xt = axisTicks(opts.x),
    yt = axisTicks(opts.y, 6);
  const yLabelW = Math.max(0, ...yt.map((t) => textWidth(t.label, TICK_FONT)));
  const left = 10 + (opts.y.label ? 22 : 0) + yLabelW + 9;
  const top = opts.title ? 36 : 14;
  const bottom = 10 + 18 + (opts.x.label ? 22 : 0);
  const side = opts.colourBar ? colourBarWidth(opts.colourBar) : legendWidth(opts.legend ?? []);
  const right = 14 + (side ? side + 6 : 0) + textWidth(xt[xt.length - 1]?.label ?? '', TICK_FONT) / 2;
  const area = { x: left, y: top, w: Math.max(60, width - left - right), h: Math.max(60, height - top - bottom) };
  const tr =
    (a: Axis) =>
    (v: number): number =>
      a.log ? Math.log10(Math.max(v, 1e-300)) : v;
  const [tx, ty] = [tr(opts.x), tr(opts.y)];
  const [x0, x1, y0, y1] = [tx(opts.x.lo), tx(opts.x.hi), ty(opts.y.lo), ty(opts.y.hi)];
  const sx = (v: number): number => area.x + ((tx(v) - x0) / (x1 - x0 || 1)) * area.w;
  const sy = (v: number): number => area.y + area.h - ((ty(v) - y0) / (y1 - y0 || 1)) * area.h;
  const bottomY = area.y + area.h;
  const grid: string[] = [],
    axes: string[] = [];
  for (const t of xt) {
    const px = sx(t.value);
    if (px < area.x - 0.5 || px > area.x + area.w + 0.5) continue;
    if (t.label && opts.grid !== false) grid.push(`<line x1="${r(px)}" x2="${r(px)}" y1="${r(area.y)}" y2="${r(bottomY)}" stroke="#e6e6e6"/>`);
    axes.push(`<line x1="${r(px)}" x2="${r(px)}" y1="${r(bottomY)}" y2="${r(bottomY + (t.label ? 5 : 3))}" stroke="#444"/>`);
    if (t.label) axes.push(`<text x="${r(px)}" y="${r(bottomY + 19)}" text-anchor="middle" font-size="${TICK_FONT}">${t.label}</text>`);
  }
  for (const t of yt) {
    const py = sy(t.value);
    if (py < area.y - 0.5 || py > bottomY + 0.5) continue;
    if (t.label && opts.grid !== false) grid.push(`<line x1="${r(area.x)}" x2="${r(area.x + area.w)}" y1="${r(py)}" y2="${r(py)}" stroke="#e6e6e6"/>`);
    axes.push(`<line x1="${r(area.x - (t.label ? 5 : 3))}" x2="${r(area.x)}" y1="${r(py)}" y2="${r(py)}" stroke="#444"/>`);
    if (t.label) axes.push(`<text x="${r(area.x - 8)}" y="${r(py + 4.5)}" text-anchor="end" font-size="${TICK_FONT}">${t.label}</text>`);
  }
  if (opts.x.label) axes.push(`<text x="${r(area.x + area.w / 2)}" y="${r(height - 10)}" text-anchor="middle" font-size="${FONT}">${esc(opts.x.label)}</text>`);
  if (opts.y.label) {
    const cx = 18,
      cy = area.y + area.h / 2;
    axes.push(`<text x="${cx}" y="${r(cy)}" text-anchor="middle" font-size="${FONT}" transform="rotate(-90 ${cx} ${r(cy)})">${esc(opts.y.label)}</text>`);
  }
  const sideX = area.x + area.w + 14;
  const aside = opts.colourBar ? colourBarSvg(opts.colourBar, sideX, area.y, area.h) : legendSvg(opts.legend ?? [], sideX, area.y);
  const title = opts.title
    ? `<text x="${r(width / 2)}" y="22" text-anchor="middle" font-size="${TITLE_FONT}" font-weight="bold">${esc(opts.title)}</text>`
    : '';
  return {
    sx,
    sy,
    area,
    svg: (marks) =>
      svgDoc(
        width,
        height,
        `${title}${grid.join('')}<g class="marks">${marks}</g><rect x="${r(area.x)}" y="${r(area.y)}" width="${r(area.w)}" height="${r(area.h)}" fill="none" stroke="#444"/>${axes.join('')}${aside}`,
        opts.title,
      ),
  };
}

/** An RGB image of grid values through a colour map (rows from the top, so y grows upward). */
export function gridImage(values: ArrayLike<number>, nx: number, ny: number, colourOf: (v: number) => readonly number[]): string {
  const rgb = new Uint8Array(nx * ny * 3);
  for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) rgb.set(colourOf(values[j * nx + i]!), 3 * ((ny - 1 - j) * nx + i));
  return pngDataUrl(nx, ny, rgb);
}
