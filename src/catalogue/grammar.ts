import { didYouMean, formatBytes, formatCount, ParalensError, quote, SpecError, TooLargeError } from '../errors.js';
import type { CostEstimate } from '../errors.js';
import { parOf, seqOf } from '../para/composite.js';
import type { Para } from '../para/para.js';
import { sizeOf } from '../tensor/tensor.js';
import { Reparam } from '../para/structure.js';

/** How a layer's argument is read: a number, an integer, a nested morphism, or raw text (e.g. a group `S(3)`). */
export type ArgKind = 'int' | 'number' | 'morphism' | 'string';
export type ArgValue = number | string | Para;

/** A layer that spec strings can name. */
export interface LayerDef {
  readonly name: string;
  /** Argument kinds; a trailing '?' marks an optional argument, a last one ending in '*' takes any number (a graph's statements). */
  readonly args: readonly `${ArgKind}${'' | '?' | '*'}`[];
  /** One line for `--help` and the docs, e.g. 'dense(in,out): affine map x ↦ Wx + b'. */
  readonly doc: string;
  make(...args: ArgValue[]): Para;
  /**
   * What `make` would cost for these arguments, estimated cheaply before it runs — for layers
   * whose construction does real work (deriving an equivariant basis, tables of n² entries).
   * May throw a TooLargeError itself. Layers that only record shapes leave it out.
   */
  cost?(...args: ArgValue[]): CostEstimate;
}

/**
 * What one spec string may ask for (docs/errors.md, E_TOO_LARGE and E_SPEC): its length, the
 * nesting of parentheses and morphism arguments, the memory its layers take to build, and the
 * parameters of the whole morphism (float32: 4 bytes each, before gradients and optimiser state).
 */
export const SPEC_LIMITS = { chars: 2 ** 20, depth: 64, bytes: 2 ** 30, parameters: 2 ** 28 } as const;

/**
 * Options of the spec parser. `constants` names sizes that may stand in for a number
 * argument: `{ vocab: 96 }` makes `embedding(vocab,64)` read as `embedding(96,64)` (the
 * train command binds `vocab` to the text data's vocabulary size). Nothing is global.
 */
export interface SpecOptions {
  readonly constants?: Readonly<Record<string, number>>;
}

/** Looks up a layer by its name in spec strings (a catalogue: src/catalogue/catalogue.ts). */
export interface LayerLookup {
  get(name: string): LayerDef | undefined;
  names(): readonly string[];
}

interface Token {
  text: string;
  pos: number;
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(>>|@|\(|\)|,|[A-Za-z_][A-Za-z0-9_.+\-*]*|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/y;
  const rest = /\s*$/y;
  let i = 0;
  while (i < src.length) {
    rest.lastIndex = i;
    if (rest.test(src)) break;
    re.lastIndex = i;
    const m = re.exec(src);
    if (!m) {
      let at = i;
      while (/\s/.test(src[at]!)) at++;
      throw new SpecError(`spec: unexpected ${quote(String.fromCodePoint(src.codePointAt(at)!))} at column ${at + 1} in ${quote(src)}`, at);
    }
    tokens.push({ text: m[1]!, pos: m.index + m[0].length - m[1]!.length });
    i = re.lastIndex;
  }
  return tokens;
}

/**
 * Parses a model spec: layers by name with arguments, `>>` for sequential composition,
 * `@` for the monoidal product (binding tighter than `>>`), parentheses for grouping.
 * `parseSpecWith(catalogue, 'dense(2,4) >> sigmoid >> dense(4,1) >> sigmoid')`; src/spec's
 * `parseSpec` is this grammar over the catalogue of every built-in layer.
 * Errors are SpecErrors naming the column; shape errors are ShapeErrors naming both sides.
 * Its cost is bounded before anything large is built (SPEC_LIMITS): the text's length and
 * nesting, then each layer's `cost` estimate before it is made, summed over the spec, and the
 * parameters of the whole morphism; over a limit is a TooLargeError (E_TOO_LARGE).
 */
export function parseSpecWith(layers: LayerLookup, src: string, opts: SpecOptions = {}): Para {
  const constants = opts.constants ?? {};
  if (typeof src !== 'string' || src.trim() === '') throw new SpecError('spec: empty model spec; expected e.g. dense(2,4) >> sigmoid');
  if (src.length > SPEC_LIMITS.chars)
    throw new TooLargeError(`spec: ${formatCount(src.length)} characters; a model spec takes at most ${formatCount(SPEC_LIMITS.chars)}`, {
      elements: src.length,
    });
  const tokens = tokenize(src);
  let k = 0,
    depth = 0,
    bytes = 0,
    parameters = 0;
  const peek = (): Token | undefined => tokens[k];
  const fail = (what: string, t: Token | undefined): never => {
    const pos = t ? t.pos : src.length;
    throw new SpecError(`spec: ${what} at column ${pos + 1} in ${quote(src)}`, pos);
  };
  /** Parses a nested expression (parentheses, a morphism argument), refusing nesting deeper than SPEC_LIMITS.depth. */
  const nested = (t: Token | undefined): Para => {
    if (++depth > SPEC_LIMITS.depth) fail(`more than ${SPEC_LIMITS.depth} levels of nesting`, t);
    const m = expr();
    depth--;
    return m;
  };
  /** Adds a layer's estimated cost to the spec's, refusing the spec once the total passes a limit. */
  const spend = (name: string, c: CostEstimate, t: Token): void => {
    bytes += c.bytes ?? 0;
    if (bytes > SPEC_LIMITS.bytes) {
      throw new TooLargeError(
        `spec: building its layers up to ${name} at column ${t.pos + 1} needs about ${formatBytes(bytes)}; the limit is ${formatBytes(SPEC_LIMITS.bytes)}`,
        { bytes },
      );
    }
  };
  const expect = (text: string): Token => {
    const t = peek();
    if (!t || t.text !== text) fail(`expected '${text}' but found ${t ? quote(t.text) : 'the end'}`, t);
    k++;
    return t!;
  };

  const expr = (): Para => {
    const parts = [term()];
    while (peek()?.text === '>>') {
      k++;
      parts.push(term());
    }
    return parts.length === 1 ? parts[0]! : seqOf(parts);
  };
  const term = (): Para => {
    const parts = [factor()];
    while (peek()?.text === '@') {
      k++;
      parts.push(factor());
    }
    return parts.length === 1 ? parts[0]! : parOf(parts);
  };
  const factor = (): Para => {
    const t = peek();
    if (!t) return fail('expected a layer but found the end', t);
    if (t.text === '(') {
      k++;
      const e = nested(t);
      expect(')');
      return e;
    }
    if (!/^[A-Za-z_]/.test(t.text)) return fail(`expected a layer name but found ${quote(t.text)}`, t);
    k++;
    const def = layers.get(t.text);
    if (!def) {
      throw new SpecError(
        `spec: unknown layer ${quote(t.text)} at column ${t.pos + 1}${didYouMean(t.text, layers.names())}; known: ${layers.names().join(', ')}`,
        t.pos,
      );
    }
    const raw: { start: number; end: number; tok: Token }[] = [];
    if (peek()?.text === '(') {
      k++;
      if (peek()?.text !== ')') {
        for (;;) {
          const start = k;
          let open = 0; // parentheses open inside this argument
          while (k < tokens.length) {
            const x = tokens[k]!.text;
            if (open === 0 && (x === ',' || x === ')')) break;
            if (x === '(') open++;
            if (x === ')') open--;
            k++;
          }
          if (start === k) fail('expected an argument', peek());
          raw.push({ start, end: k, tok: tokens[start]! });
          if (peek()?.text === ',') {
            k++;
            continue;
          }
          break;
        }
      }
      expect(')');
    }
    const variadic = def.args[def.args.length - 1]?.endsWith('*') === true;
    const required = def.args.filter((a) => !a.endsWith('?') && !a.endsWith('*')).length;
    if (raw.length < required || (!variadic && raw.length > def.args.length)) {
      const want = variadic ? `${required} or more` : required === def.args.length ? `${required}` : `${required} to ${def.args.length}`;
      fail(`${def.name} takes ${want} argument(s) (${def.doc}) but got ${raw.length}`, t);
    }
    const values = raw.map(({ start, end, tok }, i) => {
      const kind = def.args[Math.min(i, def.args.length - 1)]!.replace(/[?*]$/, '') as ArgKind;
      const text = src.slice(tok.pos, end < tokens.length ? tokens[end]!.pos : src.length).trim();
      if (kind === 'morphism') {
        const saved = k;
        k = start;
        const m = nested(tok);
        if (k !== end) fail(`unexpected ${quote(tokens[k]!.text)} in an argument of ${def.name}`, tokens[k]);
        k = saved;
        return m;
      }
      if (kind === 'string') return text;
      if (end - start === 1 && /^[A-Za-z_]/.test(text)) {
        if (!Object.hasOwn(constants, text)) {
          const bound = Object.keys(constants);
          fail(
            `${def.name} expects a number as argument ${i + 1} but got ${quote(text)} (no size named ${quote(text)} is bound here${bound.length ? `; bound: ${bound.join(', ')}` : '; vocab is bound to the vocabulary size by text data'})`,
            tok,
          );
        }
        const c = constants[text]!;
        if (kind === 'int' && !Number.isInteger(c)) fail(`${def.name} expects an integer as argument ${i + 1} but ${text} = ${c}`, tok);
        return c;
      }
      const v = Number(text);
      if (end - start !== 1 || !Number.isFinite(v)) fail(`${def.name} expects a number as argument ${i + 1} but got ${quote(text)}`, tok);
      if (kind === 'int' && !Number.isInteger(v)) fail(`${def.name} expects an integer as argument ${i + 1} but got ${quote(text)}`, tok);
      return v;
    });
    try {
      if (def.cost) spend(def.name, def.cost(...values), t);
      const made = def.make(...values);
      parameters += made.params.reduce((n, p) => n + sizeOf(p.shape), 0);
      if (parameters > SPEC_LIMITS.parameters) {
        throw new TooLargeError(
          `spec: the layers up to ${def.name} at column ${t.pos + 1} have ${formatCount(parameters)} parameters; at most ${formatCount(SPEC_LIMITS.parameters)}`,
          { elements: parameters, bytes: 4 * parameters },
        );
      }
      return made;
    } catch (e) {
      if (e instanceof ParalensError) throw e;
      throw new SpecError(`spec: ${def.name}: ${(e as Error).message}`, t.pos);
    }
  };

  const m = expr();
  if (k < tokens.length) fail(`unexpected ${quote(tokens[k]!.text)}`, tokens[k]);
  return m;
}

/**
 * The spec string of f (its toString), refused with a SpecError when part of f is a
 * reparameterisation by a map built in code, which no spec string can write (spec strings
 * write the maps of src/para/param-maps.ts: tie, cubic, linear).
 */
export function printSpec(f: Para): string {
  const unwritable = (m: Para): Reparam | undefined => (m instanceof Reparam && !m.r.writable ? m : m.children.map(unwritable).find((r) => r !== undefined));
  const r = unwritable(f);
  if (r) {
    const where = r === f ? '' : ` in ${r}`;
    throw new SpecError(
      `${f} has no spec string: its parameter map '${r.r.name}'${where} was given in code; spec strings write only tie((i,j,…),…), cubic(c) and linear((row),…)`,
    );
  }
  return String(f);
}
