import { writeFileAtomic } from '../../io/node-fs.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { table, isSilent } from '../progress.js';
import { tourReport } from '../tour/report.js';
import type { TourOutput, TourSection } from '../tour/section.js';
import { numbered, sections } from '../tour/sections.js';

export const command = defineCommand({
  name: 'tour',
  summary: 'run every perspective on built-in data and print what it found',
  usage: 'paralens tour [--report FILE.html] [--only ID,ID] [--seed N]',
  description: `The main job: runs each categorical perspective of the seeds on built-in data (XOR, Iris, moons, …)
and prints what it found, ending with the summary table mapping each concept to the paralens function
that implements it. Sections: ${sections.map((s) => s.id).join(', ')}.`,
  flags: {
    ...runtimeFlags,
    report: { type: 'string', help: 'also write a self-contained HTML page with the pictures', output: true },
    only: { type: 'string', help: 'comma-separated section ids to run' },
    seed: { type: 'int', help: 'random seed', default: 0 },
  },
  async run(flags, io) {
    const json = Boolean(flags.json);
    const only = flags.only
      ? String(flags.only)
          .split(',')
          .map((s) => s.trim())
      : undefined;
    if (only) {
      const { UsageError } = await import('../args.js');
      const bad = only.filter((id) => !sections.some((s) => s.id === id));
      if (bad.length) throw new UsageError(`tour: unknown section ${bad.join(', ')}; known: ${sections.map((s) => s.id).join(', ')}`);
    }
    const chosen = sections.filter((s) => !only || only.includes(s.id));
    const results: { section: TourSection; output: TourOutput; seconds: number }[] = [];
    const summary: [string, string][] = [];
    for (const section of chosen) {
      const t0 = performance.now();
      if (!isSilent(flags)) io.err(`… ${numbered(section).title}\n`);
      const output = await section.run({ seed: flags.seed, io });
      const seconds = (performance.now() - t0) / 1000;
      if (output.lines.length === 0) continue;
      results.push({ section, output, seconds });
      summary.push(...(output.summary ?? []));
      if (!json) io.out(`\n== ${numbered(section).title} ==\n\n${output.lines.join('\n')}\n`);
    }
    if (!json) io.out(`\n== ${sections.length + 1}. Summary: categorical concept → paralens ==\n\n${table(['concept', 'paralens'], summary)}\n`);
    if (flags.report) {
      await writeFileAtomic(String(flags.report), tourReport(results, summary), { force: Boolean(flags.force) });
      if (!json) io.out(`\nreport written to ${flags.report}\n`);
    }
    if (json) {
      io.out(
        JSON.stringify({
          sections: Object.fromEntries(results.map((r) => [r.section.id, { title: r.section.title, seconds: r.seconds, ...r.output.data }])),
          summary,
          report: flags.report ?? null,
        }) + '\n',
      );
    }
    return 0;
  },
});
