import { css, mapColour, paleOf, PALETTE } from './colour.js';
import type { ColourMap } from './colour.js';
import { barPosition, colourBarSvg, colourBarWidth, frame, gridImage, padded, TICK_FONT, TITLE_FONT } from './frame.js';
import type { LegendEntry } from './frame.js';
import { esc, r, svgDoc, textWidth } from './svg.js';

/**
 * The plots of the tour and the playground, drawn to one standard (frame.ts): ticks in any
 * range, log axes included; legends and colour bars outside the data; axis names from the data;
 * 560×360 with 13–16 px text, scaled down by the page, never up.
 */

export interface Series {
  name: string;
  values: readonly number[];
  /** x values (default 1, 2, …). */
  x?: readonly number[];
  colour?: string;
  /** Stroke dash pattern, e.g. '5 3'. */
  dash?: string;
  /** Line width (default 2). */
  width?: number;
}

const finite = (v: readonly number[]): number[] => v.filter(Number.isFinite);
/** Least and greatest of many numbers (loops: Math.min(...xs) overflows the stack on a long series). */
const least = (xs: readonly number[]): number => xs.reduce((m, v) => Math.min(m, v), Infinity);
const greatest = (xs: readonly number[]): number => xs.reduce((m, v) => Math.max(m, v), -Infinity);
const colourOf = (s: Series, i: number): string => s.colour ?? PALETTE[i % PALETTE.length]!;

/** One legend entry per distinct series name (series sharing a name share an entry). */
function seriesLegend(series: readonly Series[]): LegendEntry[] {
  const seen = new Map<string, LegendEntry>();
  series.forEach((s, i) => seen.has(s.name) || seen.set(s.name, { name: s.name, colour: colourOf(s, i), kind: 'line', dash: s.dash }));
  return [...seen.values()];
}

/** Line plot of one or more series (loss curves). `log` puts y on a log scale, `logx` x. */
export function linePlot(
  series: readonly Series[],
  opts: { title?: string; xlabel?: string; ylabel?: string; log?: boolean; logx?: boolean; markers?: boolean } = {},
): string {
  const xsOf = (s: Series): readonly number[] => s.x ?? s.values.map((_, i) => i + 1);
  const ok = (v: number, log?: boolean): boolean => Number.isFinite(v) && (!log || v > 0);
  const xs = series.flatMap(xsOf).filter((v) => ok(v, opts.logx));
  const ys = series.flatMap((s) => s.values).filter((v) => ok(v, opts.log));
  const [xlo, xhi] = opts.logx ? padded(least(xs), greatest(xs), true, 0.03) : [least(xs), greatest(xs)];
  const [ylo, yhi] = padded(least(ys), greatest(ys), opts.log);
  const f = frame({
    title: opts.title,
    x: { lo: xlo, hi: xhi === xlo ? xlo + 1 : xhi, label: opts.xlabel ?? 'epoch', log: opts.logx },
    y: { lo: ylo, hi: yhi, label: opts.ylabel ?? 'loss', log: opts.log },
    legend: series.length > 1 || series[0]?.name ? seriesLegend(series) : [],
  });
  const lines = series.map((s, i) => {
    const xv = xsOf(s);
    const pts = s.values.map((v, j) => [xv[j]!, v] as const).filter(([x, v]) => ok(x, opts.logx) && ok(v, opts.log));
    const path = `<polyline points="${pts.map(([x, v]) => `${r(f.sx(x))},${r(f.sy(v))}`).join(' ')}" fill="none" stroke="${colourOf(s, i)}" stroke-width="${s.width ?? 2}" stroke-linejoin="round"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`;
    const marks =
      (opts.markers ?? pts.length <= 20)
        ? pts.map(([x, v]) => `<circle cx="${r(f.sx(x))}" cy="${r(f.sy(v))}" r="3.5" fill="${colourOf(s, i)}" stroke="white"/>`).join('')
        : '';
    return path + marks;
  });
  return f.svg(lines.join(''));
}

/** Mean with a ±band (uncertainty): band = mean ± k·std. Points (optional) are drawn on top. */
export function bandPlot(
  x: readonly number[],
  mean: readonly number[],
  std: readonly number[],
  opts: { title?: string; k?: number; points?: { x: number; y: number }[]; xlabel?: string; ylabel?: string } = {},
): string {
  const k = opts.k ?? 2;
  const lo = mean.map((m, i) => m - k * std[i]!),
    hi = mean.map((m, i) => m + k * std[i]!);
  const ys = finite([...lo, ...hi, ...(opts.points ?? []).map((p) => p.y)]);
  const [ylo, yhi] = padded(least(ys), greatest(ys));
  const legend: LegendEntry[] = [
    { name: 'predictive mean', colour: PALETTE[0], kind: 'line' },
    { name: `mean ± ${k} std`, colour: PALETTE[0], kind: 'band' },
  ];
  if (opts.points?.length) legend.push({ name: 'training points', colour: PALETTE[3], kind: 'point' });
  const f = frame({
    title: opts.title,
    x: { lo: least(x), hi: greatest(x), label: opts.xlabel ?? 'x' },
    y: { lo: ylo, hi: yhi, label: opts.ylabel ?? 'y' },
    legend,
  });
  const band = [
    ...x.map((xi, i) => `${r(f.sx(xi))},${r(f.sy(hi[i]!))}`),
    ...[...x].reverse().map((xi, i) => `${r(f.sx(xi))},${r(f.sy(lo[x.length - 1 - i]!))}`),
  ].join(' ');
  const line = x.map((xi, i) => `${r(f.sx(xi))},${r(f.sy(mean[i]!))}`).join(' ');
  const pts = (opts.points ?? [])
    .map((p) => `<circle cx="${r(f.sx(p.x))}" cy="${r(f.sy(p.y))}" r="3" fill="${PALETTE[3]}" stroke="white" stroke-width="0.8"/>`)
    .join('');
  return f.svg(
    `<polygon points="${band}" fill="${PALETTE[0]}" fill-opacity="0.22"/><polyline points="${line}" fill="none" stroke="${PALETTE[0]}" stroke-width="2"/>${pts}`,
  );
}

/** A class-coloured point with a white ring and a dark edge, visible on any background. */
const dot = (x: number, y: number, colour: string, radius = 4.5): string =>
  `<circle cx="${r(x)}" cy="${r(y)}" r="${radius}" fill="${colour}" stroke="#222" stroke-width="0.9"/>`;

/** Points coloured by class, with optional marked centres (k-means); axis names and class names from the data. */
export function scatterPlot(
  points: readonly (readonly number[])[],
  labels: ArrayLike<number>,
  opts: {
    title?: string;
    centres?: readonly (readonly number[])[];
    xlabel?: string;
    ylabel?: string;
    classNames?: readonly string[];
    centreName?: string;
  } = {},
): string {
  const xs = points.map((p) => p[0]!),
    ys = points.map((p) => p[1]!);
  const [xlo, xhi] = padded(least(xs), greatest(xs));
  const [ylo, yhi] = padded(least(ys), greatest(ys));
  const classes = [...new Set(Array.from(labels))].sort((a, b) => a - b);
  const legend: LegendEntry[] = classes.map((c) => ({ name: opts.classNames?.[c] ?? `class ${c}`, colour: PALETTE[c % PALETTE.length]!, kind: 'point' }));
  if (opts.centres?.length) legend.push({ name: opts.centreName ?? 'centroid', colour: '#111', kind: 'cross' });
  const f = frame({ title: opts.title, x: { lo: xlo, hi: xhi, label: opts.xlabel ?? 'x₁' }, y: { lo: ylo, hi: yhi, label: opts.ylabel ?? 'x₂' }, legend });
  const dots = points.map((p, i) => dot(f.sx(p[0]!), f.sy(p[1]!), PALETTE[labels[i]! % PALETTE.length]!, 3.6)).join('');
  const centres = (opts.centres ?? [])
    .map((c) => {
      const [cx, cy] = [f.sx(c[0]!), f.sy(c[1]!)];
      const d = `M${r(cx - 8)},${r(cy)}h16M${r(cx)},${r(cy - 8)}v16`;
      return `<path d="${d}" stroke="white" stroke-width="6"/><path d="${d}" stroke="#111" stroke-width="3"/>`;
    })
    .join('');
  return f.svg(dots + centres);
}

/** Values on a grid over a box: `values[j·nx + i]`, row j from the bottom. */
export interface GridValues {
  values: ArrayLike<number>;
  nx: number;
  ny: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/**
 * A heat map of values on a grid over [x0,x1]×[y0,y1] (a classifier's χ over the input plane, a
 * predictive std), drawn as one smoothly interpolated image (no seams between cells), with a
 * colour bar, optional polylines on top (the boundary χ⁻¹(0.5)) and class-coloured points.
 * `corners`: the values sit on the grid's corners (x0 + i·(x1−x0)/(nx−1)), not cell centres.
 * `classes`: the values are class indices (a multi-class prediction), drawn in pale class colours with a legend.
 */
export function heatMap(
  grid: GridValues,
  opts: {
    title?: string;
    lines?: readonly (readonly (readonly [number, number])[])[];
    points?: { x: number; y: number; label: number }[];
    lo?: number;
    hi?: number;
    map?: ColourMap;
    label?: string;
    xlabel?: string;
    ylabel?: string;
    corners?: boolean;
    classes?: number;
    classNames?: readonly string[];
    width?: number;
    height?: number;
  } = {},
): string {
  const lo = opts.lo ?? 0,
    hi = opts.hi ?? 1,
    map = opts.map ?? 'diverging';
  const pale = !!opts.points?.length;
  const hx = opts.corners ? (grid.x1 - grid.x0) / (grid.nx - 1) / 2 : 0,
    hy = opts.corners ? (grid.y1 - grid.y0) / (grid.ny - 1) / 2 : 0;
  const box = { x0: grid.x0 - hx, x1: grid.x1 + hx, y0: grid.y0 - hy, y1: grid.y1 + hy };
  const classLegend: LegendEntry[] | undefined = opts.classes
    ? Array.from({ length: opts.classes }, (_, c) => ({
        name: opts.classNames?.[c] ?? `class ${c}`,
        colour: PALETTE[c % PALETTE.length]!,
        kind: 'point' as const,
      }))
    : undefined;
  const f = frame({
    title: opts.title,
    width: opts.width,
    height: opts.height ?? 400,
    grid: false,
    x: { lo: box.x0, hi: box.x1, label: opts.xlabel ?? 'x₁' },
    y: { lo: box.y0, hi: box.y1, label: opts.ylabel ?? 'x₂' },
    ...(classLegend ? { legend: classLegend } : { colourBar: { map, lo, hi, label: opts.label ?? 'value', pale } }),
  });
  const colour = opts.classes
    ? (v: number) => paleOf(PALETTE[Math.round(v) % PALETTE.length]!, 0.62)
    : (v: number) => mapColour(map, (v - lo) / (hi - lo || 1), pale);
  const img = `<image x="${r(f.sx(box.x0))}" y="${r(f.sy(box.y1))}" width="${r(f.sx(box.x1) - f.sx(box.x0))}" height="${r(f.sy(box.y0) - f.sy(box.y1))}" preserveAspectRatio="none" style="image-rendering:auto" href="${gridImage(grid.values, grid.nx, grid.ny, colour)}"/>`;
  const lines = (opts.lines ?? [])
    .map(
      (l) =>
        `<polyline points="${l.map(([x, y]) => `${r(f.sx(x))},${r(f.sy(y))}`).join(' ')}" fill="none" stroke="#111" stroke-width="2.2" stroke-linejoin="round"/>`,
    )
    .join('');
  const pts = (opts.points ?? []).map((p) => dot(f.sx(p.x), f.sy(p.y), PALETTE[p.label % PALETTE.length]!)).join('');
  return f.svg(img + lines + pts);
}

const cellText = (v: number): string => String(Number(v.toPrecision(3)));

/**
 * A matrix as framed coloured cells with row/column labels and a colour bar (agreement matrices,
 * defects, accuracies). Column labels wider than a cell are staggered over as many lines as it
 * takes for neighbours on a line to be apart (level text stays easy to read). With `log`, colours follow log10 of the value from the smallest positive one (or `lo`)
 * to the largest: values that span decades all stay apart, and a value ≤ 0 takes the palest end.
 */
export function matrixPlot(
  m: readonly (readonly number[])[],
  opts: {
    title?: string;
    rowLabels?: string[];
    colLabels?: string[];
    diverging?: boolean;
    cell?: number;
    label?: string;
    lo?: number;
    hi?: number;
    log?: boolean;
  } = {},
): string {
  const rows = m.length,
    cols = m[0]?.length ?? 0;
  const labelW = (ls?: string[]): number => (ls?.length ? Math.max(...ls.map((l) => textWidth(l, TICK_FONT))) + 10 : 8);
  const c = opts.cell ?? Math.max(14, Math.min(64, 360 / Math.max(rows, cols)));
  const vals = finite(m.flat());
  const amax = vals.reduce((m, v) => Math.max(m, Math.abs(v)), 1e-12);
  const positive = vals.filter((v) => v > 0);
  const log = Boolean(opts.log) && positive.length > 0;
  const lo = log ? (opts.lo !== undefined && opts.lo > 0 ? opts.lo : least(positive)) : (opts.lo ?? (opts.diverging ? -amax : least(vals))),
    hi = opts.hi ?? (opts.diverging ? amax : greatest(vals));
  const map: ColourMap = opts.diverging ? 'diverging' : 'sequential';
  const bar = { map, lo, hi: hi > lo ? hi : lo * 10, label: opts.label ?? 'value', log };
  const t = (v: number): number => (log && !(v > 0) ? 0 : Math.max(0, Math.min(1, barPosition(bar, v))));
  // column labels on `lines` lines, label j on line j mod lines: labels on one line are `lines` cells apart
  const colW = Math.max(0, ...(opts.colLabels ?? []).map((l) => textWidth(l, TICK_FONT)));
  const lines = Math.min(cols, Math.max(1, Math.ceil((colW + 8) / c)));
  const left = Math.max(12 + labelW(opts.rowLabels), colW / 2 - c / 2 + 8),
    top = (opts.title ? 36 : 12) + (opts.colLabels ? 22 + 16 * (lines - 1) : 0);
  const width = Math.max(left + cols * c + 16 + colourBarWidth(bar), left + cols * c - c / 2 + colW / 2 + 8),
    height = top + Math.max(rows * c, 120) + 14;
  const cells = m.flatMap((row, i) =>
    row.map((v, j) => {
      const [x, y] = [left + j * c, top + i * c];
      const dark = opts.diverging ? Math.abs(t(v) - 0.5) > 0.35 : t(v) > 0.55;
      const text =
        c >= 30
          ? `<text x="${r(x + c / 2)}" y="${r(y + c / 2 + 4.5)}" text-anchor="middle" font-size="${c >= 44 ? TICK_FONT : 11}" fill="${dark ? 'white' : '#111'}">${cellText(v)}</text>`
          : '';
      return `<rect x="${r(x)}" y="${r(y)}" width="${r(c)}" height="${r(c)}" fill="${css(mapColour(map, t(v)))}" stroke="white" stroke-width="0.6"><title>${v}</title></rect>${text}`;
    }),
  );
  const rl = (opts.rowLabels ?? []).map(
    (l, i) => `<text x="${left - 6}" y="${r(top + i * c + c / 2 + 4.5)}" text-anchor="end" font-size="${TICK_FONT}">${esc(l)}</text>`,
  );
  const cl = (opts.colLabels ?? []).map(
    (l, j) =>
      `<text x="${r(left + j * c + c / 2)}" y="${top - 7 - 16 * (lines - 1 - (j % lines))}" text-anchor="middle" font-size="${TICK_FONT}">${esc(l)}</text>`,
  );
  const frameRect = `<rect x="${left}" y="${top}" width="${r(cols * c)}" height="${r(rows * c)}" fill="none" stroke="#444"/>`;
  const title = opts.title
    ? `<text x="${r(width / 2)}" y="22" text-anchor="middle" font-size="${TITLE_FONT}" font-weight="bold">${esc(opts.title)}</text>`
    : '';
  return svgDoc(
    width,
    height,
    `${title}${cells.join('')}${frameRect}${rl.join('')}${cl.join('')}${colourBarSvg(bar, left + cols * c + 16, top, Math.max(rows * c, 120))}`,
    opts.title,
  );
}

/**
 * Several small matrices side by side (an equivariant basis, one image per basis element),
 * each framed and named, on one diverging scale: every element divided by its largest |entry|,
 * so the colour bar reads −1 … 1 and zeros are the white inside a frame.
 */
export function matrixGallery(
  ms: readonly (readonly (readonly number[])[])[],
  opts: { title?: string; cell?: number; names?: readonly string[]; maxWidth?: number } = {},
): string {
  const c = opts.cell ?? 12;
  const gap = 18,
    pad = 12;
  const maxWidth = opts.maxWidth ?? 900;
  const top = opts.title ? 38 : 12;
  const bar = { map: 'diverging' as const, lo: -1, hi: 1, label: 'entry / max |entry|' };
  const barW = colourBarWidth(bar) + 10;
  const parts: string[] = [];
  let x = pad,
    y = top,
    rowH = 0,
    width = 0;
  ms.forEach((m, k) => {
    const w = (m[0]?.length ?? 0) * c,
      h = m.length * c;
    if (x > pad && x + w > maxWidth - barW) {
      x = pad;
      y += rowH + 28;
      rowH = 0;
    }
    const a = Math.max(1e-12, ...m.flat().map(Math.abs));
    m.forEach((row, i) =>
      row.forEach((v, j) =>
        parts.push(`<rect x="${r(x + j * c)}" y="${r(y + i * c)}" width="${c}" height="${c}" fill="${css(mapColour('diverging', (v / a + 1) / 2))}"/>`),
      ),
    );
    parts.push(`<rect x="${r(x)}" y="${r(y)}" width="${r(w)}" height="${r(h)}" fill="none" stroke="#444"/>`);
    parts.push(`<text x="${r(x + w / 2)}" y="${r(y + h + 17)}" text-anchor="middle" font-size="${TICK_FONT}">${esc(opts.names?.[k] ?? `B${k + 1}`)}</text>`);
    x += w + gap;
    rowH = Math.max(rowH, h);
    width = Math.max(width, x);
  });
  const barH = Math.max(100, y + rowH - top);
  const total = width + barW;
  const title = opts.title ? `<text x="${r(pad)}" y="24" font-size="${TITLE_FONT}" font-weight="bold">${esc(opts.title)}</text>` : '';
  return svgDoc(Math.max(total, 260), Math.max(y + rowH + 30, top + barH + 14), `${title}${parts.join('')}${colourBarSvg(bar, width, top, barH)}`, opts.title);
}
