import { esc } from '../../draw/svg.js';
import type { TourOutput, TourSection } from './section.js';
import { numbered, sections } from './sections.js';

/**
 * The tour as a self-contained HTML page (inline SVG, no network access), laid out like a
 * paper's companion: a table of contents, numbered sections and figures, text that wraps,
 * tables as tables, every figure captioned with what to see in it; readable from phone to
 * laptop width (the figures scale down, never overflow).
 */

/** A text table from progress.ts `table()` (header, a row of dashes, rows) as an HTML table, its columns cut where the dashes are. */
function htmlTable(block: string): string | undefined {
  const rows = block.split('\n');
  if (rows.length < 2 || !/^-+( {2}-+)*$/.test(rows[1]!)) return undefined;
  const cols: [number, number][] = [];
  for (const m of rows[1]!.matchAll(/-+/g)) cols.push([m.index!, m.index! + m[0].length]);
  const cells = (row: string): string[] => cols.map(([a], j) => row.slice(a, j + 1 < cols.length ? cols[j + 1]![0] : undefined).trim());
  const head = cells(rows[0]!)
    .map((c) => `<th>${esc(c)}</th>`)
    .join('');
  const body = rows
    .slice(2)
    .map(
      (row) =>
        `<tr>${cells(row)
          .map((c) => `<td>${esc(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** Lines that are pictures in characters (a grid of #/., a matrix of numbers): kept as preformatted text. */
const isArt = (line: string): boolean => /^\s/.test(line) && !/[A-Za-z]{3}/.test(line);

/** A section's lines as HTML: prose wraps, tables become tables, character pictures stay preformatted. */
export function linesHtml(lines: readonly string[]): string {
  const out: string[] = [];
  let art: string[] = [];
  const flush = (): void => {
    if (art.length) out.push(`<pre>${esc(art.join('\n'))}</pre>`);
    art = [];
  };
  for (const line of lines) {
    const t = line.includes('\n') ? htmlTable(line) : undefined;
    if (t) {
      flush();
      out.push(t);
    } else if (line.includes('\n')) {
      flush();
      out.push(`<pre>${esc(line)}</pre>`);
    } else if (!line.trim()) flush();
    else if (isArt(line)) art.push(line);
    else {
      flush();
      out.push(`<p${/^\s/.test(line) ? ' class="sub"' : ''}>${esc(line.trim())}</p>`);
    }
  }
  flush();
  return out.join('\n');
}

const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;max-width:1040px;margin:0 auto;padding:1.5em 1.2em 4em;color:#1d1d1d;background:#fff}
h1{font-size:1.9em;margin:.2em 0 .2em}h2{font-size:1.4em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2.2em}
.lede{color:#444}
nav.toc{background:#f7f7f9;border:1px solid #e2e2e8;border-radius:6px;padding:.6em 1.2em;margin:1.2em 0}
nav.toc ol{margin:.3em 0;padding-left:1.6em}nav.toc a{color:#1f4f8a;text-decoration:none}nav.toc a:hover{text-decoration:underline}
p{margin:.45em 0;overflow-wrap:anywhere}p.sub{margin-left:1.4em;color:#333}
pre{background:#f6f6f6;padding:.7em 1em;font-size:13px;line-height:1.35;overflow-x:auto;white-space:pre;border-radius:4px}
.scroll{overflow-x:auto;margin:.6em 0}
table{border-collapse:collapse;font-size:14px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d4d4d8;padding:3px 8px;text-align:left;vertical-align:top}th{background:#f2f2f5}
td code{font-size:13px}
figure{margin:1.4em 0;padding:0}
figure svg{display:block;max-width:100%;height:auto;margin:0 auto}
figure .pan{overflow-x:auto}
figcaption{font-size:14px;color:#333;margin-top:.4em;max-width:780px;margin-left:auto;margin-right:auto}
figcaption b{color:#111}
.figs{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,470px),1fr));gap:0 1.5em;align-items:start}.figs figure.wide{grid-column:1/-1}
@media (max-width:600px){body{padding:.8em .7em 3em;font-size:15px}h1{font-size:1.5em}h2{font-size:1.2em}table{font-size:12.5px}pre{font-size:11.5px}}
`;

/** The width an SVG asks for (its width attribute). */
const svgWidth = (svg: string): number => Number(/<svg[^>]*\swidth="([\d.]+)"/.exec(svg)?.[1] ?? 0);

/**
 * The least a figure is scaled down: its labels (10–14 px) stay at least 8 px tall. A figure
 * wider than its column at that scale — a long string diagram on a phone — keeps that width
 * and pans sideways in its own box instead of shrinking until its labels cannot be read.
 */
const LEAST_SCALE = 0.8;
const legible = (svg: string): string => {
  const least = Math.ceil(svgWidth(svg) * LEAST_SCALE);
  return least > 0 ? `<div class="pan"><div style="min-width:${least}px">${svg}</div></div>` : svg;
};

/** A self-contained HTML page with every section's text and pictures, and the summary table. */
export function tourReport(results: { section: TourSection; output: TourOutput }[], summary: [string, string][]): string {
  const toc = [
    ...results.map(({ section }) => `<li value="${numbered(section).n}"><a href="#${section.id}">${esc(section.title)}</a></li>`),
    `<li value="${sections.length + 1}"><a href="#summary">Summary: categorical concept → paralens</a></li>`,
  ].join('');
  const body = results
    .map(({ section, output }) => {
      const n = numbered(section).n;
      const figs = (output.figures ?? []).map(
        (f, k) =>
          `<figure id="fig-${n}-${k + 1}"${svgWidth(f.svg) > 600 ? ' class="wide"' : ''}>${legible(f.svg)}<figcaption><b>Figure ${n}.${k + 1}.</b> ${esc(f.caption)}</figcaption></figure>`,
      );
      // small figures side by side where there is room, wide ones (string diagrams, galleries) on their own
      const wrapped = figs.length > 1 ? `<div class="figs">${figs.join('\n')}</div>` : figs.join('');
      return `<section id="${section.id}"><h2>${esc(numbered(section).title)}</h2>\n${linesHtml(output.lines)}\n${wrapped}</section>`;
    })
    .join('\n');
  const rows = summary.map(([a, b]) => `<tr><td>${esc(a)}</td><td><code>${esc(b)}</code></td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>paralens tour</title>
<style>${STYLE}</style>
</head><body><h1>paralens tour</h1>
<p class="lede">Each section runs one categorical perspective of deep learning on built-in data and shows what it found: the numbers (as printed by <code>paralens tour</code>) and the pictures, each captioned with what to see in it.</p>
<nav class="toc" aria-label="Contents"><b>Contents</b><ol>${toc}</ol></nav>
${body}
<section id="summary"><h2>${sections.length + 1}. Summary: categorical concept → paralens</h2><div class="scroll"><table><thead><tr><th>concept</th><th>paralens</th></tr></thead><tbody>${rows}</tbody></table></div></section>
</body></html>
`;
}
