import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { characterVocabulary, decodeText, encodeText, evaluationWindows, sampleWindows, textCorpus, vocabSize } from '../../src/data/text.js';
import { readFortunes, readTextFile } from '../../src/data/node-text.js';
import { DataError, Rng } from '../../src/index.js';

describe('character-level text', () => {
  it('the vocabulary is the sorted set of code points of the training text, plus one unknown id', () => {
    const text = 'banana bread🍞 and cake!',
      chars = Array.from(text); // 🍞 is one code point
    const c = textCorpus('t', text, { valFraction: 0.25 });
    const nTrain = Math.floor(chars.length * 0.75);
    expect(c.vocabulary).toEqual([' ', 'a', 'b', 'd', 'e', 'n', 'r', '🍞']);
    expect(vocabSize(c.vocabulary)).toBe(9);
    expect(c.train.length).toBe(nTrain);
    expect(c.val.length).toBe(chars.length - nTrain);
    // 'c', 'k' and '!' appear only in the validation part: they read as the unknown id
    expect(decodeText(c.val, c.vocabulary)).toBe(chars.slice(nTrain).join('').replace(/[ck!]/g, '\uFFFD'));
  });

  it('encode and decode are inverse on text inside the vocabulary (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (s) => {
        const v = characterVocabulary(s);
        expect(decodeText(encodeText(s, v), v)).toBe(s);
        expect(encodeText(s, v).length).toBe(Array.from(s).length);
      }),
    );
  });

  it('windows: random starts give x and its next characters; evaluation windows predict every character once', () => {
    const ids = Float32Array.from({ length: 50 }, (_, i) => i);
    const x = new Float32Array(4 * 7),
      y = new Float32Array(4 * 7);
    sampleWindows(ids, 7, new Rng(1), x, y);
    for (let b = 0; b < 4; b++) for (let t = 0; t < 7; t++) expect(y[b * 7 + t]).toBe(x[b * 7 + t]! + 1);
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 300 }), fc.integer({ min: 1, max: 40 }), (n, T) => {
        fc.pre(n >= T + 1);
        const counted = new Array(n).fill(0);
        for (const w of evaluationWindows(n, T)) {
          expect(w.start).toBeGreaterThanOrEqual(0);
          expect(w.start + T).toBeLessThanOrEqual(n - 1);
          for (let t = w.from; t < T; t++) counted[w.start + t + 1]++;
        }
        expect(counted.slice(1).every((c) => c === 1)).toBe(true);
      }),
    );
  });

  it('a text too short for one window in each part is a DataError', () => {
    expect(() => textCorpus('tiny', 'abcdefghij', { minWindow: 5 })).toThrow(DataError);
  });
});

describe('text files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-text-'));

  it('text:PATH reads UTF-8 and names the path when it is missing or not UTF-8', () => {
    writeFileSync(join(dir, 'ok.txt'), 'héllo');
    expect(readTextFile(join(dir, 'ok.txt'))).toBe('héllo');
    expect(() => readTextFile(join(dir, 'nope.txt'))).toThrow(/nope\.txt.*ENOENT/);
    writeFileSync(join(dir, 'bad.txt'), Uint8Array.from([0x61, 0xff, 0x62]));
    expect(() => readTextFile(join(dir, 'bad.txt'))).toThrow(/bad\.txt: not valid UTF-8/);
  });

  it('fortunes: the regular files that are not .dat indexes and not symbolic links, sorted by name, concatenated', () => {
    const f = join(dir, 'fortunes');
    mkdirSync(f);
    writeFileSync(join(f, 'zeta'), 'Z\n%\n');
    writeFileSync(join(f, 'alpha'), 'A\n%\n');
    writeFileSync(join(f, 'alpha.dat'), Uint8Array.from([0, 1, 2]));
    symlinkSync(join(f, 'alpha'), join(f, 'alpha.u8'));
    expect(readFortunes(f)).toBe('A\n%\nZ\n%\n');
    expect(() => readFortunes(join(dir, 'no-such-dir'))).toThrow(/no-such-dir not found/);
  });
});
