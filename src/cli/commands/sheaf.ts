import { subset } from '../../data/dataset.js';
import type { Dataset } from '../../data/dataset.js';
import { DataError, quote } from '../../errors.js';
import { sheafEnsembleStudy } from '../../experiments/topos/ensemble-study.js';
import type { GluingStudy } from '../../experiments/topos/ensemble-study.js';
import { glue } from '../../topos/gluing/glue.js';
import type { Section } from '../../topos/gluing/glue.js';
import { maximalConsistentSubset } from '../../topos/gluing/consistent.js';
import { EXERCISE3_EXPERTS, EXERCISE3_TOLERANCES, gluingTable } from '../../topos/gluing/seed-experts.js';
import { parseDecimal } from '../args.js';
import { defineCommand } from '../command.js';
import type { CliIO } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, inputsOf, loadData } from '../data.js';
import type { Task } from '../../data/task.js';
import { fmt, isSilent, Progress, table } from '../progress.js';
import { trainingFlags } from '../training.js';

/** Parses `--predictions "0.7,0.3 | 0.72,0.28 | 0.3,0.7"` into sections named A, B, C, … over one shared context. */
function parsePredictions(text: string): Section[] {
  return text.split('|').map((part, i) => {
    const name = String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');
    const prediction = part.split(',').map((s) => {
      const v = parseDecimal(s.trim());
      if (v === undefined || !Number.isFinite(v)) throw new DataError(`sheaf --predictions: section ${name} has ${quote(s.trim())}, not a number`);
      return v;
    });
    return { name, context: ['X'], prediction };
  });
}

function vec(p: readonly number[]): string {
  return p.length === 1 ? fmt(p[0]!) : `[${p.map((v) => fmt(v)).join(', ')}]`;
}

/** Exercise 3 as text: per tolerance, the maximal gluing families, the conflicts and the maximum consistent subset. */
export function exercise3Lines(): string[] {
  const lines: string[] = [];
  lines.push('experts: ' + EXERCISE3_EXPERTS.map((s) => `${s.name} ${s.prediction} on {${s.context.join(',')}}`).join('; '));
  for (const t of gluingTable(EXERCISE3_EXPERTS, EXERCISE3_TOLERANCES)) {
    const ok = t.subsets.filter((s) => s.glued).length;
    lines.push(
      `ε = ${t.tolerance}: ${ok} of ${t.subsets.length} subsets of ≥ 2 experts glue; all ${EXERCISE3_EXPERTS.length} together ${t.all.glued ? `glue to ${vec(t.all.section!.prediction)}` : 'do not glue'}`,
    );
    lines.push(`  glue (maximal families): ${t.maximal.map((m) => `{${m.join(',')}}`).join(' ')}`);
    lines.push(
      `  do not glue (any subset containing a conflicting pair): ${t.conflicts.length ? t.conflicts.map((c) => `${c.names.join('–')} (${fmt(c.distance, 2)})`).join(' ') : 'none'}`,
    );
    lines.push(`  maximum consistent subset: {${t.maximum.names.join(',')}} → ${vec(t.maximum.section.prediction)} (${t.maximum.method})`);
  }
  return lines;
}

/** The study as text. */
function studyLines(r: GluingStudy): string[] {
  const lines: string[] = [];
  lines.push(
    `${r.experts} experts on ${r.data}, each on a bootstrap sample and ${r.featuresPerExpert} features; ${r.heldOut} held-out rows pooled over ${r.splits} split(s)`,
  );
  lines.push(
    table(
      ['expert', 'context', 'held-out accuracy'],
      r.contexts.map((c, k) => [`E${k + 1}`, c.length > 6 ? `${c.length} features: ${c.slice(0, 4).join(', ')}, …` : c.join(', '), fmt(r.expertAccuracy[k]!)]),
    ),
  );
  lines.push(`ensemble (mean section) accuracy ${fmt(r.ensembleAccuracy)}; ${r.wrong} wrong answers`);
  lines.push(
    `at ε = ${r.tolerance}: ${r.atTolerance.glued} rows glue (error ${fmt(r.atTolerance.errorGlued)}), ${r.atTolerance.notGlued} do not (error ${fmt(r.atTolerance.errorNotGlued)}; maximum consistent subset's answer: ${fmt(r.errorNotGluedConsistent)})`,
  );
  lines.push(`AUROC of disagreement (smallest ε that glues) for predicting a wrong answer: ${fmt(r.auroc)}`);
  lines.push(
    table(
      ['ε', 'glued', 'error glued', 'not glued', 'error not glued'],
      r.sweep.map((s) => [s.tolerance, s.glued, fmt(s.errorGlued), s.notGlued, fmt(s.errorNotGlued)]),
    ),
  );
  return lines;
}

/** The first `n` rows of a data set (all of them when it has fewer). */
function head(ds: Dataset, n: number): Dataset {
  return ds.x.batch <= n
    ? ds
    : subset(
        ds,
        Array.from({ length: n }, (_, i) => i),
      );
}

const labelledData = dataFlags({ help: 'labelled data set' });

export const command = defineCommand({
  name: 'sheaf',
  summary: 'sheaf gluing of an ensemble: when experts agree, glue; when they do not, flag an error',
  usage: 'paralens sheaf --data NAME --experts K --tol X [--json] | sheaf --predictions "p|p|…" --tol X | sheaf --exercise',
  description: `Trains K experts, each on a bootstrap sample and on its own subset of the features (its context, an
open set), and treats their class-probability vectors on a held-out row as local sections. The sections
glue when every two experts with overlapping contexts agree within ε (max-norm); the glued section is
their mean. Reports the error rate on rows that glue vs rows that do not, and the AUROC of the
disagreement (the smallest ε that glues) for predicting a wrong answer, pooled over seeded splits.
--predictions glues given prediction vectors ("0.7,0.3 | 0.72,0.28 | 0.3,0.7") and finds the maximum
consistent subset; --exercise prints exercise 3 of seed 000 (five experts at ε = 0.05, 0.15, 0.5).
Data: a labelled built-in set, fashion-mnist, or your own CSV, NumPy or IDX files (see paralens train --help).`,
  flags: {
    ...labelledData,
    data: { ...labelledData.data, default: 'iris' },
    experts: { type: 'int', help: 'number of experts K (≥ 2)', default: 7, range: 'positive' },
    tol: { type: 'number', help: 'tolerance ε of the sheaf condition (≥ 0)', default: 0.2, range: 'nonnegative' },
    features: { type: 'int', help: 'features per expert (default min(d − 1, ⌈3d/4⌉): every two contexts overlap)', range: 'positive' },
    splits: { type: 'int', help: 'seeded stratified 80/20 splits whose held-out rows are pooled', default: 5, range: 'positive' },
    ...runtimeFlags,
    ...trainingFlags(['epochs', 'seed'], { epochs: { default: undefined, help: 'training epochs per expert (default 100; 5 for large data)' } }),
    hidden: { type: 'int', help: 'hidden units per expert (default 16; 32 for large data)', range: 'positive' },
    limit: { type: 'int', help: 'fashion-mnist: rows of the training and of the test set to use', default: 5000, range: 'positive' },
    predictions: { type: 'string', help: 'glue these prediction vectors instead: "0.7,0.3 | 0.72,0.28 | 0.3,0.7"' },
    exercise: { type: 'boolean', help: 'print exercise 3 of seed 000' },
  },
  async run(flags, io) {
    const json = Boolean(flags.json);
    const tol = flags.tol;
    if (flags.exercise) return exercise(io, json);
    if (flags.predictions !== undefined) {
      const sections = parsePredictions(String(flags.predictions));
      const r = glue(sections, tol);
      const best = maximalConsistentSubset(sections, tol);
      if (json)
        io.out(
          JSON.stringify({ tolerance: tol, glued: r.glued, section: r.glued ? r.section : null, conflict: r.glued ? null : r.conflict, maximum: best }) + '\n',
        );
      else {
        io.out(
          r.glued
            ? `glued at ε = ${tol}: ${vec(r.section.prediction)}\n`
            : `no global section at ε = ${tol}: ${r.conflict.names.join(' and ')} differ by ${fmt(r.conflict.distance)} (${r.conflicts} conflicting pair${r.conflicts === 1 ? '' : 's'})\n`,
        );
        io.out(
          `maximum consistent subset: {${best.names.join(',')}} → ${vec(best.section.prediction)} (${best.method}${best.exact ? ', exact' : ', approximate'})\n`,
        );
      }
      return 0;
    }
    const seed = flags.seed;
    const loaded = inputsOf(
      await loadData(String(flags.data), {
        seed,
        dataDir: flags['data-dir'],
        target: flags.target,
        task: flags.task,
      }),
    );
    const fixedTest = loaded.test;
    const data = fixedTest ? head(loaded, flags.limit) : loaded;
    const progress = new Progress(io, 'sheaf', isSilent(flags));
    const r = sheafEnsembleStudy(data, {
      experts: flags.experts,
      tolerance: tol,
      features: flags.features,
      splits: flags.splits,
      epochs: flags.epochs,
      hidden: flags.hidden,
      seed,
      test: fixedTest ? head(fixedTest, flags.limit) : undefined,
      onSplit: (d, n) => progress.update(d, n, 'splits'),
    });
    progress.done();
    if (json) io.out(JSON.stringify(r) + '\n');
    else io.out(studyLines(r).join('\n') + '\n');
    return 0;
  },
});

function exercise(io: CliIO, json: boolean): number {
  if (json) io.out(JSON.stringify({ experts: EXERCISE3_EXPERTS, tolerances: gluingTable(EXERCISE3_EXPERTS, EXERCISE3_TOLERANCES) }) + '\n');
  else io.out(exercise3Lines().join('\n') + '\n');
  return 0;
}
