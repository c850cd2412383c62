import { describe, expect, it } from 'vitest';
import { BUILT_IN_LAYERS, parseSpec } from '../../src/catalogue/index.js';
import { EXEMPTIONS, isOperatorKind, OPERATOR_EXEMPTIONS } from '../../src/catalogue/exemptions.js';
import type { Concern } from '../../src/catalogue/exemptions.js';
import { DRAW_RULES } from '../../src/draw/rules.js';
import { ONNX_RULES } from '../../src/io/onnx/export-rules.js';
import { TORCH_RULES } from '../../src/io/pytorch/rules.js';
import type { Para } from '../../src/para/para.js';
import { hostOnlyParts } from '../../src/tensor/device-layers.js';
import type { RuleTable } from '../../src/rule-table.js';
import { EXAMPLES } from './examples.js';

/**
 * Every layer that spec strings can name × every concern that needs a rule per layer kind: the
 * test prints the table and fails on a layer with no rule for a concern and no reasoned
 * exemption in src/catalogue/exemptions.ts, on a stale exemption, and on a rule for a kind no
 * layer makes. A layer's cell is read off its example (./examples.ts): the parts of the
 * morphism a concern's rules reach — a part whose kind has a rule hands its children on to
 * their own rules (seq, residual, tied, the transformer's expansion), one without stops there.
 */

/** The parts of m the table has no rule for, outermost first (as the exporters refuse them). */
function gaps(table: RuleTable<unknown>, m: Para): Para[] {
  return table.has(m.kind) ? m.children.flatMap((c) => gaps(table, c)) : [m];
}

/** The kind of a part named by its spec string (hostOnlyParts names parts by spec). */
const kindOfSpec = (spec: string): string => /^[A-Za-z_][A-Za-z0-9_]*/.exec(spec)?.[0] ?? spec;

/** Each concern: the kinds of the parts of m it has no rule for. */
const CONCERNS: Readonly<Record<Concern, (m: Para) => string[]>> = {
  'ONNX export': (m) => gaps(ONNX_RULES, m).map((p) => p.kind),
  'PyTorch export': (m) => gaps(TORCH_RULES, m).map((p) => p.kind),
  drawing: (m) => gaps(DRAW_RULES, m).map((p) => p.kind),
  device: (m) => hostOnlyParts(m).map(kindOfSpec),
};
const TABLES: readonly RuleTable<unknown>[] = [ONNX_RULES, TORCH_RULES, DRAW_RULES];

interface Cell {
  /** Kinds without a rule that are exempt, and those that are not. */
  readonly exempt: readonly string[];
  readonly missing: readonly string[];
}

// the built-in layers: one a test defines (defineLayer) stays in the catalogue of a worker that runs files one after another
const layers = BUILT_IN_LAYERS.map((d) => d.name);
const made = new Map(layers.filter((name) => name in EXAMPLES).map((name) => [name, parseSpec(EXAMPLES[name]!.spec)]));
const concerns = Object.keys(CONCERNS) as Concern[];
const cells = new Map<string, Cell>();
for (const [name, m] of made) {
  for (const c of concerns) {
    const kinds = [...new Set(CONCERNS[c](m))];
    const isExempt = (k: string): boolean => k in EXEMPTIONS[c] || (isOperatorKind(k) && OPERATOR_EXEMPTIONS[c] !== undefined);
    cells.set(`${name} ${c}`, { exempt: kinds.filter(isExempt), missing: kinds.filter((k) => !isExempt(k)) });
  }
}

/** ✓ a rule; '–' exempt (naming the exempt parts when they are not the layer itself); MISSING otherwise. */
function show(name: string, c: Cell): string {
  if (c.missing.length) return `MISSING ${c.missing.join(',')}`;
  if (c.exempt.length) return c.exempt.length === 1 && c.exempt[0] === name ? '–' : `– (${c.exempt.join(',')})`;
  return '✓';
}

function table(): string {
  const header = ['layer', 'catalogue', ...concerns];
  const rows = layers.map((name) => [
    name,
    name in EXAMPLES ? '✓' : 'no example',
    ...concerns.map((c) => (made.has(name) ? show(name, cells.get(`${name} ${c}`)!) : '?')),
  ]);
  const covered = concerns.map((c) => [...made.keys()].filter((name) => show(name, cells.get(`${name} ${c}`)!) === '✓').length);
  const footer = ['with a rule', `${made.size} of ${layers.length}`, ...covered.map((n) => `${n} of ${layers.length}`)];
  const all = [header, ...rows, footer];
  const width = header.map((_, j) => Math.max(...all.map((r) => [...r[j]!].length)));
  const line = (r: readonly string[]): string => r.map((v, j) => v + ' '.repeat(width[j]! - [...v].length)).join('  ');
  return [line(header), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), line(footer)].join('\n');
}

describe('every layer × every concern: a rule or a reasoned exemption (src/catalogue/exemptions.ts)', () => {
  it('prints the table', () => {
    console.log(`\nRules per layer kind (✓ a rule; – exempt, src/catalogue/exemptions.ts says why):\n\n${table()}\n`);
    expect(layers.length).toBeGreaterThan(0);
  });

  it('every catalogue layer has an example to read its rules off', () => {
    expect(layers.filter((name) => !made.has(name))).toEqual([]);
  });

  it.each(concerns)('%s: every layer has a rule or an exemption', (c) => {
    const missing = [...made.keys()].flatMap((name) => cells.get(`${name} ${c}`)!.missing.map((k) => `${name} (part ${k})`));
    expect(missing, `no ${c} rule and no exemption in src/catalogue/exemptions.ts`).toEqual([]);
  });

  it.each(concerns)('%s: every exemption is needed (its kind is made by a layer and has no rule)', (c) => {
    const used = new Set([...made.keys()].flatMap((name) => cells.get(`${name} ${c}`)!.exempt));
    expect(Object.keys(EXEMPTIONS[c]).filter((k) => !used.has(k))).toEqual([]);
    // the operators' one reason is needed when some operator layer uses it
    if (OPERATOR_EXEMPTIONS[c] !== undefined) expect([...used].some(isOperatorKind)).toBe(true);
  });

  it('every exemption gives its reason in one line', () => {
    const reasons = concerns.flatMap((c) => [...Object.values(EXEMPTIONS[c]), ...(OPERATOR_EXEMPTIONS[c] ? [OPERATOR_EXEMPTIONS[c]] : [])]);
    const bad = reasons.filter((why) => why.trim().length < 20 || why.includes('\n'));
    expect(bad).toEqual([]);
  });

  it.each(TABLES.map((t) => [t.concern, t] as const))('%s: every rule is for a kind some layer makes', (_c, t) => {
    const kinds = new Set<string>();
    const visit = (m: Para): void => {
      kinds.add(m.kind);
      m.children.forEach(visit);
    };
    made.forEach(visit);
    expect(t.kinds().filter((k) => !kinds.has(k))).toEqual([]);
  });
});

describe('the rule tables (src/rule-table.ts)', () => {
  it('refuse a kind that two families both claim', async () => {
    const { ruleTable } = await import('../../src/rule-table.js');
    expect(() => ruleTable('test', [{ dense: 1 }, [['relu', 2] as const, ['dense', 3] as const]])).toThrow(/two rules for the layer kind 'dense'/);
    const t = ruleTable('test', [{ dense: 1 }, [['relu', 2] as const]]);
    expect(t.kinds()).toEqual(['dense', 'relu']);
    t.define('halve', 4);
    expect([t.get('halve'), t.has('halve'), t.get('relu'), t.get('nothing')]).toEqual([4, true, 2, undefined]);
  });
});
