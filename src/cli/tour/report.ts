import { esc } from '../../draw/svg.js';
import type { TourOutput, TourSection } from './section.js';


/** A self-contained HTML page (inline SVG, no network access) with every section's text and pictures. */
export function tourReport(results: { section: TourSection; output: TourOutput }[], summary: [string, string][]): string {
  const body = results
    .map(({ section, output }) => {
      const figs = (output.figures ?? []).map((f) => `<figure>${f.svg}<figcaption>${esc(f.caption)}</figcaption></figure>`).join('\n');
      return `<section id="${section.id}"><h2>${esc(section.title)}</h2><pre>${esc(output.lines.join('\n'))}</pre>${figs}</section>`;
    })
    .join('\n');
  const rows = summary.map(([a, b]) => `<tr><td>${esc(a)}</td><td><code>${esc(b)}</code></td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>paralens tour</title>
<style>body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}figure{display:inline-block;margin:1em}
table{border-collapse:collapse}td{border:1px solid #ccc;padding:4px 8px}h2{border-bottom:1px solid #ddd}</style>
</head><body><h1>paralens tour</h1>
${body}
<section id="summary"><h2>Summary: categorical concept → paralens</h2><table>${rows}</table></section>
</body></html>
`;
}
