/**
 * Renders the JSON of `npm run bench -- --json` (and of bench/fashion.js --json) as the
 * Markdown tables of BENCHMARKS.md:  node dist/bench/render.js bench.json [fashion.json]
 */
import { readFileSync } from 'node:fs';
import { markdownTable, ratioTable } from './report.js';
import type { Ratio } from './report.js';
import { median } from './workloads.js';
import type { Measurement } from './workloads.js';

interface EpochRow {
  epoch: number;
  seconds: number;
  loss: number;
  testAccuracy: number;
}

// `render.js … | head` closes the pipe early: that is not an error
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const [benchFile, fashionFile] = process.argv.slice(2);
if (benchFile) {
  const b = JSON.parse(readFileSync(benchFile, 'utf8')) as { results: Measurement[]; ratios: Ratio[]; systems: Record<string, string>; skipped: string[] };
  process.stdout.write(`${markdownTable(b.results)}\n\nSpeed-ups (paralens ÷ peer; > 1 means paralens is faster):\n\n${ratioTable(b.ratios)}\n\n`);
  for (const [k, v] of Object.entries(b.systems)) process.stdout.write(`- ${k}: ${v}\n`);
  for (const s of b.skipped) process.stdout.write(`- skipped: ${s}\n`);
}
if (fashionFile) {
  const f = JSON.parse(readFileSync(fashionFile, 'utf8')) as {
    backend: string;
    settings: Record<string, unknown>;
    torch: string | null;
    models: Record<string, { spec: string; paralens: EpochRow[]; pytorch: EpochRow[] | null }>;
  };
  for (const [kind, m] of Object.entries(f.models)) {
    process.stdout.write(
      `\n**${kind}** \`${m.spec}\`\n\n| epoch | paralens (${f.backend}) s | PyTorch ${f.torch ?? ''} (${f.settings.torchThreads} threads) s | paralens test acc | PyTorch test acc |\n|---:|---:|---:|---:|---:|\n`,
    );
    m.paralens.forEach((o, i) => {
      const p = m.pytorch?.[i];
      process.stdout.write(
        `| ${o.epoch} | ${o.seconds.toFixed(1)} | ${p ? p.seconds.toFixed(1) : '—'} | ${o.testAccuracy.toFixed(4)} | ${p ? p.testAccuracy.toFixed(4) : '—'} |\n`,
      );
    });
    const med = (rs: EpochRow[]): number => median(rs.map((r) => r.seconds));
    if (m.pytorch)
      process.stdout.write(
        `\nmedian epoch: paralens ${med(m.paralens).toFixed(1)} s, PyTorch ${med(m.pytorch).toFixed(1)} s (ratio ${(med(m.paralens) / med(m.pytorch)).toFixed(2)}×); final test accuracy paralens ${m.paralens.at(-1)!.testAccuracy.toFixed(4)}, PyTorch ${m.pytorch.at(-1)!.testAccuracy.toFixed(4)}\n`,
      );
  }
}
