import { DataError } from '../errors.js';

/**
 * Delimited text as records: RFC 4180 quoting (delimiters, doubled quotes and line breaks
 * inside quotes), fields trimmed, blank lines and lines starting with '#' skipped; and the
 * delimiter a file uses, detected from its first lines. src/data/table.ts makes columns of them.
 */

/** The delimiters tried, in order of preference; then runs of spaces. */
export const CANDIDATES = [',', '\t', ';', '|'] as const;
/** The delimiter that stands for runs of spaces and tabs (whitespace-aligned files). */
const WHITESPACE = ' ';

export interface RawRecord {
  fields: string[];
  line: number;
}

/**
 * The records of `text`, one at a time (quote-aware; blank and '#' lines skipped). `visit`
 * returns false to stop early.
 */
export function eachRecord(text: string, delimiter: string, name: string, visit: (r: RawRecord) => boolean): void {
  const n = text.length,
    ws = delimiter === WHITESPACE;
  let i = 0,
    line = 1;
  const isSep = (c: string): boolean => (ws ? c === ' ' || c === '\t' : c === delimiter);
  while (i < n) {
    // start of a record: skip blank and comment lines
    const startLine = line;
    let j = i;
    while (j < n && (text[j] === ' ' || text[j] === '\t')) j++;
    if (j >= n) break;
    const c0 = text[j]!;
    if (c0 === '\n' || c0 === '\r' || c0 === '#') {
      while (j < n && text[j] !== '\n' && text[j] !== '\r') j++;
      if (text[j] === '\r' && text[j + 1] === '\n') j++;
      i = j + 1;
      line++;
      continue;
    }
    const fields: string[] = [];
    let endOfRecord = false;
    while (!endOfRecord) {
      while (i < n && (text[i] === ' ' || (text[i] === '\t' && delimiter !== '\t'))) i++;
      let field: string;
      if (text[i] === '"') {
        const quoteLine = line;
        let s = '';
        i++;
        for (;;) {
          if (i >= n) throw new DataError(`${name}: line ${quoteLine}: a quoted field is not closed (expected a closing '"')`);
          const q = text.indexOf('"', i);
          if (q < 0) throw new DataError(`${name}: line ${quoteLine}: a quoted field is not closed (expected a closing '"')`);
          const part = text.slice(i, q);
          for (let k = 0; k < part.length; k++) if (part[k] === '\n') line++;
          s += part;
          if (text[q + 1] === '"') {
            s += '"';
            i = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
        while (i < n && (text[i] === ' ' || (text[i] === '\t' && delimiter !== '\t'))) i++;
        if (i < n && !isSep(text[i]!) && text[i] !== '\n' && text[i] !== '\r') {
          throw new DataError(`${name}: line ${line}: '${text[i]}' after a closing quote; expected the delimiter '${shown(delimiter)}' or the end of the line`);
        }
        field = s;
      } else {
        let k = i;
        const d = delimiter.charCodeAt(0);
        for (; k < n; k++) {
          const c = text.charCodeAt(k);
          if (c === 10 || c === 13 || c === d || (ws && c === 9)) break;
        }
        field = text.slice(i, k).trim();
        i = k;
      }
      fields.push(field);
      if (i >= n) endOfRecord = true;
      else if (text[i] === '\n' || text[i] === '\r') {
        if (text[i] === '\r' && text[i + 1] === '\n') i++;
        i++;
        line++;
        endOfRecord = true;
      } else {
        i++; // the delimiter
        if (ws) {
          while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
          if (i >= n || text[i] === '\n' || text[i] === '\r') {
            // trailing spaces end the record
            if (i < n) {
              if (text[i] === '\r' && text[i + 1] === '\n') i++;
              i++;
              line++;
            }
            endOfRecord = true;
          }
        }
      }
    }
    if (!visit({ fields, line: startLine })) return;
  }
}

export function firstRecords(text: string, delimiter: string, name: string, k: number): RawRecord[] {
  const out: RawRecord[] = [];
  eachRecord(text, delimiter, name, (r) => (out.push(r), out.length < k));
  return out;
}

export function shown(d: string): string {
  return d === '\t' ? '\\t' : d === WHITESPACE ? 'spaces' : d;
}

/** How many fields `line` has with delimiter d, counting only delimiters outside quotes. */
function fieldCount(line: string, d: string): number {
  if (d === WHITESPACE) return line.trim().split(/[ \t]+/).length;
  let count = 1,
    quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === d && !quoted) count++;
  }
  return count;
}

/**
 * The delimiter that splits the first lines (after the first, which may be a header or
 * scikit-learn's count line) into the same number of fields, more than one: ',', tab, ';',
 * '|' in that order of preference, then runs of spaces; where none is consistent, the one
 * consistent on most lines (a ragged row then gets an error naming it).
 */
export function detectDelimiter(text: string): string {
  const head = text.slice(0, 1 << 16);
  let lines = head.split(/\r?\n|\r/);
  if (head.length < text.length) lines.pop(); // cut in the middle
  lines = lines
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .slice(0, 30);
  const body = lines.length > 1 ? lines.slice(1) : lines;
  let best: { d: string; share: number } = { d: ',', share: 0 };
  for (const d of [...CANDIDATES, WHITESPACE]) {
    const counts = body.map((l) => fieldCount(l, d));
    const mode = modeOf(counts);
    if (mode <= 1) continue;
    const share = counts.filter((c) => c === mode).length / counts.length;
    if (share === 1) return d;
    if (share > best.share) best = { d, share };
  }
  return best.d;
}

function modeOf(xs: readonly number[]): number {
  const seen = new Map<number, number>();
  let mode = 0,
    most = 0;
  for (const x of xs) {
    const c = (seen.get(x) ?? 0) + 1;
    seen.set(x, c);
    if (c > most) [mode, most] = [x, c];
  }
  return mode;
}
