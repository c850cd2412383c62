/** Tables and ratios for `npm run bench`. */
import type { Measurement } from './workloads.js';

/** Higher is better, except for wall times. */
const better = (m: Measurement, other: Measurement): number => (m.unit === 's' ? other.value / m.value : m.value / other.value);

export interface Ratio {
  workload: string;
  system: string;
  peer: string;
  /** How many times better `system` is than `peer` (speed-up; > 1 means faster). */
  ratio: number;
}

/** Every paralens system against every peer, per workload (rows measured on an emulated device have no speed to compare). */
export function ratios(results: readonly Measurement[]): Ratio[] {
  const out: Ratio[] = [];
  for (const m of results) {
    if (!m.system.startsWith('paralens') || m.emulated) continue;
    for (const p of results) {
      if (p.workload === m.workload && !p.system.startsWith('paralens'))
        out.push({ workload: m.workload, system: m.system, peer: p.system, ratio: better(m, p) });
    }
  }
  return out;
}

const fmtValue = (m: Measurement | undefined): string => {
  if (!m) return '—';
  if (m.unit === 's') return `${m.value < 10 ? m.value.toFixed(3) : m.value.toFixed(1)} s`;
  return m.value >= 100 ? Math.round(m.value).toLocaleString('en-US') : m.value.toPrecision(3);
};

/** A Markdown table: one row per workload, one column per system. */
export function markdownTable(results: readonly Measurement[]): string {
  const workloads = [...new Set(results.map((r) => r.workload))];
  const systems = [...new Set(results.map((r) => r.system))];
  const unit = (w: string): string => results.find((r) => r.workload === w)!.unit;
  const lines = [`| workload | unit | ${systems.join(' | ')} |`, `|---|---|${systems.map(() => '---:').join('|')}|`];
  for (const w of workloads) {
    lines.push(`| ${w} | ${unit(w)} | ${systems.map((s) => fmtValue(results.find((r) => r.workload === w && r.system === s))).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** A Markdown table of speed-ups: one row per workload, one column per (paralens system, peer). */
export function ratioTable(rs: readonly Ratio[]): string {
  const workloads = [...new Set(rs.map((r) => r.workload))];
  const pairs = [...new Set(rs.map((r) => `${r.system} ÷ ${r.peer}`))];
  const lines = [`| workload | ${pairs.join(' | ')} |`, `|---|${pairs.map(() => '---:').join('|')}|`];
  for (const w of workloads) {
    lines.push(
      `| ${w} | ${pairs
        .map((p) => {
          const r = rs.find((x) => x.workload === w && `${x.system} ÷ ${x.peer}` === p);
          return r ? `${r.ratio.toFixed(2)}×` : '—';
        })
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}
