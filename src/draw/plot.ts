import { esc, r, svgDoc } from './svg.js';

export interface Series {
  name: string;
  values: readonly number[];
  /** x values (default 1, 2, …). */
  x?: readonly number[];
  colour?: string;
}

const PALETTE = ['#2a5599', '#d0661a', '#2e8b57', '#a33', '#7a4fa3', '#777'];
const W = 420, H = 260, L = 52, R = 14, T = 26, B = 36;

interface Frame {
  sx(x: number): number;
  sy(y: number): number;
  axes: string;
}

function niceTicks(lo: number, hi: number, n = 5): number[] {
  if (!(hi > lo)) return [lo];
  const step0 = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

function frame(xlo: number, xhi: number, ylo: number, yhi: number, xlabel: string, ylabel: string, log = false): Frame {
  const ty = (y: number): number => (log ? Math.log10(Math.max(y, 1e-12)) : y);
  const [a, b] = [ty(ylo), ty(yhi)];
  const sx = (x: number): number => L + ((x - xlo) / (xhi - xlo || 1)) * (W - L - R);
  const sy = (y: number): number => H - B - ((ty(y) - a) / (b - a || 1)) * (H - T - B);
  const ticks: string[] = [];
  for (const t of niceTicks(xlo, xhi)) ticks.push(`<text x="${r(sx(t))}" y="${H - B + 14}" text-anchor="middle" font-size="10">${t}</text>`);
  const yt = log ? niceTicks(a, b).filter(Number.isInteger).map((e) => Math.pow(10, e)) : niceTicks(ylo, yhi);
  for (const t of yt) ticks.push(`<text x="${L - 4}" y="${r(sy(t) + 3)}" text-anchor="end" font-size="10">${log ? `1e${Math.log10(t)}` : t}</text><line x1="${L}" x2="${W - R}" y1="${r(sy(t))}" y2="${r(sy(t))}" stroke="#eee"/>`);
  const axes = `<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="none" stroke="#999"/>${ticks.join('')}<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">${esc(xlabel)}</text><text x="12" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 12 ${(T + H - B) / 2})">${esc(ylabel)}</text>`;
  return { sx, sy, axes };
}

/** Least and greatest of many numbers (loops: Math.min(...xs) overflows the stack on a long series). */
const least = (xs: readonly number[], start = Infinity): number => xs.reduce((m, v) => Math.min(m, v), start);
const greatest = (xs: readonly number[]): number => xs.reduce((m, v) => Math.max(m, v), -Infinity);

function legend(series: readonly Series[]): string {
  return series.map((s, i) => `<rect x="${L + 8}" y="${T + 6 + 14 * i}" width="10" height="3" fill="${s.colour ?? PALETTE[i % PALETTE.length]}"/><text x="${L + 22}" y="${T + 11 + 14 * i}" font-size="10">${esc(s.name)}</text>`).join('');
}

/** Line plot of one or more series (loss curves). `log` puts y on a log scale. */
export function linePlot(series: readonly Series[], opts: { title?: string; xlabel?: string; ylabel?: string; log?: boolean } = {}): string {
  const xs = series.flatMap((s) => s.x ?? s.values.map((_, i) => i + 1));
  const ys = series.flatMap((s) => s.values).filter(Number.isFinite);
  const f = frame(least(xs), greatest(xs), opts.log ? Math.max(1e-12, least(ys)) : least(ys, 0), greatest(ys), opts.xlabel ?? 'epoch', opts.ylabel ?? 'loss', opts.log);
  const lines = series.map((s, i) => {
    const pts = s.values.map((v, j) => `${r(f.sx(s.x?.[j] ?? j + 1))},${r(f.sy(v))}`).join(' ');
    return `<polyline points="${pts}" fill="none" stroke="${s.colour ?? PALETTE[i % PALETTE.length]}" stroke-width="1.5"/>`;
  });
  return svgDoc(W, H, `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(opts.title ?? '')}</text>${f.axes}${lines.join('')}${legend(series)}`, opts.title);
}

/** Mean with a ±band (uncertainty): band = mean ± k·std. Points (optional) are drawn on top. */
export function bandPlot(x: readonly number[], mean: readonly number[], std: readonly number[], opts: { title?: string; k?: number; points?: { x: number; y: number }[]; xlabel?: string; ylabel?: string } = {}): string {
  const k = opts.k ?? 2;
  const lo = mean.map((m, i) => m - k * std[i]!), hi = mean.map((m, i) => m + k * std[i]!);
  const ys = [...lo, ...hi, ...(opts.points ?? []).map((p) => p.y)];
  const f = frame(least(x), greatest(x), least(ys), greatest(ys), opts.xlabel ?? 'x', opts.ylabel ?? 'y');
  const band = [...x.map((xi, i) => `${r(f.sx(xi))},${r(f.sy(hi[i]!))}`), ...[...x].reverse().map((xi, i) => `${r(f.sx(xi))},${r(f.sy(lo[x.length - 1 - i]!))}`)].join(' ');
  const line = x.map((xi, i) => `${r(f.sx(xi))},${r(f.sy(mean[i]!))}`).join(' ');
  const pts = (opts.points ?? []).map((p) => `<circle cx="${r(f.sx(p.x))}" cy="${r(f.sy(p.y))}" r="2" fill="#a33"/>`).join('');
  return svgDoc(W, H, `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(opts.title ?? '')}</text>${f.axes}<polygon points="${band}" fill="#2a5599" fill-opacity="0.2"/><polyline points="${line}" fill="none" stroke="#2a5599" stroke-width="1.5"/>${pts}`, opts.title);
}

/** Points coloured by class, with optional marked centres (k-means). */
export function scatterPlot(points: readonly (readonly number[])[], labels: ArrayLike<number>, opts: { title?: string; centres?: readonly (readonly number[])[] } = {}): string {
  const xs = points.map((p) => p[0]!), ys = points.map((p) => p[1]!);
  const f = frame(least(xs), greatest(xs), least(ys), greatest(ys), 'x₁', 'x₂');
  const dots = points.map((p, i) => `<circle cx="${r(f.sx(p[0]!))}" cy="${r(f.sy(p[1]!))}" r="2.5" fill="${PALETTE[labels[i]! % PALETTE.length]}" fill-opacity="0.8"/>`).join('');
  const centres = (opts.centres ?? []).map((c) => `<path d="M${r(f.sx(c[0]!) - 6)},${r(f.sy(c[1]!))}h12M${r(f.sx(c[0]!))},${r(f.sy(c[1]!) - 6)}v12" stroke="black" stroke-width="2.5"/>`).join('');
  return svgDoc(W, H, `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(opts.title ?? '')}</text>${f.axes}${dots}${centres}`, opts.title);
}

function colour(v: number, lo: number, hi: number, diverging: boolean): string {
  const t = hi > lo ? Math.max(0, Math.min(1, (v - lo) / (hi - lo))) : 0.5;
  if (diverging) {
    // blue (lo) — white — orange (hi)
    const a = t < 0.5 ? [42, 85, 153] : [208, 102, 26];
    const s = Math.abs(t - 0.5) * 2;
    return `rgb(${a.map((c) => Math.round(255 + (c - 255) * s)).join(',')})`;
  }
  const g = Math.round(255 - 200 * t);
  return `rgb(${g},${g},${Math.round(255 - 100 * t)})`;
}

/**
 * A heat map of values on a grid over [x0,x1]×[y0,y1] (e.g. a classifier's χ over the input
 * plane), with optional polylines on top (the boundary χ⁻¹(0.5)) and labelled points.
 */
export function heatMap(
  grid: { values: ArrayLike<number>; nx: number; ny: number; x0: number; x1: number; y0: number; y1: number },
  opts: { title?: string; lines?: readonly (readonly (readonly [number, number])[])[]; points?: { x: number; y: number; label: number }[]; lo?: number; hi?: number } = {},
): string {
  const f = frame(grid.x0, grid.x1, grid.y0, grid.y1, 'x₁', 'x₂');
  const lo = opts.lo ?? 0, hi = opts.hi ?? 1;
  const cw = (f.sx(grid.x1) - f.sx(grid.x0)) / grid.nx, ch = (f.sy(grid.y0) - f.sy(grid.y1)) / grid.ny;
  const cells: string[] = [];
  for (let j = 0; j < grid.ny; j++) {
    for (let i = 0; i < grid.nx; i++) {
      const v = grid.values[j * grid.nx + i]!;
      cells.push(`<rect x="${r(f.sx(grid.x0) + i * cw)}" y="${r(f.sy(grid.y0) - (j + 1) * ch)}" width="${r(cw + 0.5)}" height="${r(ch + 0.5)}" fill="${colour(v, lo, hi, true)}"/>`);
    }
  }
  const lines = (opts.lines ?? []).map((l) => `<polyline points="${l.map(([x, y]) => `${r(f.sx(x))},${r(f.sy(y))}`).join(' ')}" fill="none" stroke="black" stroke-width="2"/>`).join('');
  const pts = (opts.points ?? []).map((p) => `<circle cx="${r(f.sx(p.x))}" cy="${r(f.sy(p.y))}" r="4" fill="${p.label ? '#d0661a' : '#2a5599'}" stroke="black"/>`).join('');
  // cells over the axes' grid lines
  return svgDoc(W, H, `<text x="${W / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(opts.title ?? '')}</text>${f.axes}${cells.join('')}${lines}${pts}`, opts.title);
}

/** A matrix as coloured cells with row/column labels (agreement matrices, kernel bases). */
export function matrixPlot(m: readonly (readonly number[])[], opts: { title?: string; rowLabels?: string[]; colLabels?: string[]; diverging?: boolean; cell?: number } = {}): string {
  const rows = m.length, cols = m[0]?.length ?? 0;
  const c = opts.cell ?? Math.max(8, Math.min(36, 300 / Math.max(rows, cols)));
  const left = opts.rowLabels ? 60 : 8, top = 30 + (opts.colLabels ? 14 : 0);
  const vals = m.flat();
  const lo = opts.diverging ? -greatest(vals.map(Math.abs)) : least(vals);
  const hi = opts.diverging ? -lo : greatest(vals);
  // cells large enough carry their value as text (3 significant digits)
  const label = (v: number, x: number, y: number): string =>
    c >= 30 ? `<text x="${r(x + c / 2)}" y="${r(y + c / 2 + 4)}" text-anchor="middle" font-size="10" fill="${Math.abs(v - lo) > 0.6 * Math.abs(hi - lo) && !opts.diverging ? 'white' : 'black'}">${Number(v.toPrecision(3))}</text>` : '';
  const cells = m.flatMap((row, i) => row.map((v, j) => `<rect x="${r(left + j * c)}" y="${r(top + i * c)}" width="${r(c)}" height="${r(c)}" fill="${colour(v, lo, hi, opts.diverging ?? false)}" stroke="#fff" stroke-width="0.5"><title>${v}</title></rect>${label(v, left + j * c, top + i * c)}`));
  const rl = (opts.rowLabels ?? []).map((l, i) => `<text x="${left - 4}" y="${r(top + i * c + c / 2 + 4)}" text-anchor="end" font-size="10">${esc(l)}</text>`);
  const cl = (opts.colLabels ?? []).map((l, j) => `<text x="${r(left + j * c + c / 2)}" y="${top - 4}" text-anchor="middle" font-size="10">${esc(l)}</text>`);
  const width = left + cols * c + 10, height = top + rows * c + 10;
  return svgDoc(width, height, `<text x="${width / 2}" y="16" text-anchor="middle" font-weight="bold">${esc(opts.title ?? '')}</text>${cells.join('')}${rl.join('')}${cl.join('')}`, opts.title);
}

/** Several small matrices side by side (an equivariant basis, one image per basis element). */
export function matrixGallery(ms: readonly (readonly (readonly number[])[])[], opts: { title?: string; cell?: number } = {}): string {
  const c = opts.cell ?? 10;
  const gap = 10;
  let x = 8;
  const parts: string[] = [];
  let h = 0;
  for (const m of ms) {
    const vals = m.flat();
    const a = Math.max(1e-12, ...vals.map(Math.abs));
    m.forEach((row, i) => row.forEach((v, j) => parts.push(`<rect x="${r(x + j * c)}" y="${r(28 + i * c)}" width="${c}" height="${c}" fill="${colour(v, -a, a, true)}"/>`)));
    x += (m[0]?.length ?? 0) * c + gap;
    h = Math.max(h, m.length * c);
  }
  return svgDoc(Math.max(x, 200), h + 40, `<text x="8" y="16" font-weight="bold">${esc(opts.title ?? '')}</text>${parts.join('')}`, opts.title);
}
