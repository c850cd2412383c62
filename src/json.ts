/**
 * JSON from a received file, parsed only after a linear scan has bounded what it becomes: how
 * deep it nests (so nothing that walks it later — a message that prints it, a generator that
 * writes it as Python — recurses as deep as the input decides), how many members one object or
 * array has, and how many values it holds in all (so JSON.parse never builds millions of keys).
 * Every file format that carries JSON (safetensors headers, the JSON strings of a model file's
 * or a checkpoint's metadata, a preprocessing record) goes through here. No imports: each
 * caller turns a refusal into its own typed error.
 */

export interface JsonLimits {
  /** The deepest nesting of objects and arrays (default 32). */
  readonly maxDepth?: number;
  /** The most members of one object or array (default 65 536). */
  readonly maxMembers?: number;
  /** The most values in all (default 2²⁰). */
  readonly maxValues?: number;
  /** Refuse numbers written with a fraction or an exponent (`2.0`, `1e3`): the safetensors header's sizes are integers. */
  readonly integersOnly?: boolean;
}

export const JSON_LIMITS = { maxDepth: 32, maxMembers: 65_536, maxValues: 2 ** 20 } as const;

export type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string };

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COMMA = 0x2c;

/**
 * Why `text` exceeds `limits`, or undefined: one pass, stopping at the first excess (so a
 * header of eight million keys is refused after reading the first of them). Strings are skipped
 * whole; malformed text is left to JSON.parse to report.
 */
export function jsonExcess(text: string, limits: JsonLimits = {}): string | undefined {
  const maxDepth = limits.maxDepth ?? JSON_LIMITS.maxDepth,
    maxMembers = limits.maxMembers ?? JSON_LIMITS.maxMembers,
    maxValues = limits.maxValues ?? JSON_LIMITS.maxValues;
  const members: number[] = []; // per open object or array: members after its first
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // the closing quote: the next one not escaped by an odd run of backslashes
      let j = text.indexOf('"', i + 1);
      while (j > 0) {
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - k) % 2 === 1) break;
        j = text.indexOf('"', j + 1);
      }
      if (j < 0) return undefined; // unterminated: JSON.parse says so
      i = j;
      values++;
    } else if (c === 0x7b || c === 0x5b) {
      // { [
      if (members.length >= maxDepth) return `it nests deeper than ${maxDepth} levels`;
      members.push(0);
      values++;
    } else if (c === 0x7d || c === 0x5d) members.pop();
    else if (c === COMMA) {
      const top = members.length - 1;
      if (top >= 0 && ++members[top]! >= maxMembers) return `an object or list has more than ${maxMembers} members`;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      // a number: -?digits[.digits][e±digits]
      let j = i + 1;
      for (; j < text.length; j++) {
        const d = text.charCodeAt(j);
        if (!((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d)) break;
        if (limits.integersOnly && (d === 0x2e || d === 0x65 || d === 0x45))
          return `the number ${text.slice(i, Math.min(j + 8, i + 40))}… is not an integer written without a fraction or exponent`;
      }
      i = j - 1;
      values++;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) values++; // true false null (their letters are skipped below)
    if (values > maxValues) return `it holds more than ${maxValues} values`;
  }
  return undefined;
}

/** JSON.parse after `jsonExcess` has found the text within `limits`. */
export function parseJsonWithin(text: string, limits: JsonLimits = {}): JsonParse {
  const excess = jsonExcess(text, limits);
  if (excess !== undefined) return { ok: false, reason: excess };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const message = (e as Error).message;
    return { ok: false, reason: message.length > 160 ? `${message.slice(0, 160)}…` : message };
  }
}
