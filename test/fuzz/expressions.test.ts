// Fuzzing the group and representation expression parsers of src/symmetry (the
// `paralens derive --group G --in REP --out REP` grammar) and the graph parser.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseGraph } from '../../src/nn/equivariant/message-passing.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { ParalensError } from '../../src/errors.js';
import { cleanly, NUM_RUNS } from './cleanly.js';

/** Token soups over the grammar's alphabet, with small numbers (large ones are tested apart). */
const soup = (tokens: readonly string[]) => fc.array(fc.constantFrom(...tokens), { maxLength: 14 }).map((t) => t.join(''));
const mutated = (valid: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...valid), fc.nat(40), fc.nat(40), fc.string({ maxLength: 3 }))
    .map(([s, i, j, ins]) => s.slice(0, i % (s.length + 1)) + ins + s.slice(j % (s.length + 1)));

const REP_TOKENS = ['V', 'T', 'T(', '(', ')', ',', '+', '*', '⊗', '_', 'dual(', 'sum(', 'tensor(', '0', '1', '2', '3', ' ', 'x', '-1', '1.5'];
const REP_VALID = ['V', 'T(2)', 'V+T(0)', '3V', 'T(1,1)', 'T2', 'T1_1', 'dual(V)*V', '(V+T(0))*V', 'sum(V,T(0))', 'tensor(V,V)'];
const GROUP_TOKENS = ['S', 'Z', 'D', 'SO', 'O', 'Trans', 'Perm', '(', ')', ',', 'x', '1', '2', '3', '4', '0', ' ', '-1', '(1,0)', '(0,1,2)'];
const GROUP_VALID = ['S(4)', 'Z(8)', 'D(6)', 'Trans(16)', 'Trans(8,8)', 'SO(3)', 'O(5)', 'O(1,3)', 'Perm((1,2,3,0),(3,2,1,0))', 'S(3)xZ(2)'];

/**
 * Every number may appear: sizes beyond what fits in memory are refused by the parsers
 * (S(n), Z(n), Trans up to 4096 points, SO(n)/O(n) up to 64, multiplicities and tensor
 * powers up to 64). Numbers of eight digits or more are kept out only to keep the inputs
 * varied (they are all refused the same way; cli-args.test.ts checks some).
 */
const small = (a: fc.Arbitrary<string>) => a.filter((s) => !/\d{8,}/.test(s));

describe('fuzzing the expression parsers: a result or a clean typed error', () => {
  it('representation expressions', () => {
    fc.assert(
      fc.property(small(fc.oneof(soup(REP_TOKENS), mutated(REP_VALID), fc.string({ maxLength: 20 }))), (src) => {
        const r = cleanly(() => parseRep(src));
        if (r instanceof ParalensError) expect(r.code).toBe('E_EXPR');
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('group expressions', () => {
    fc.assert(
      fc.property(small(fc.oneof(soup(GROUP_TOKENS), mutated(GROUP_VALID), fc.string({ maxLength: 20 }))), (src) => {
        cleanly(() => parseGroup(src));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('graphs', () => {
    const tokens = ['cycle(', 'path(', 'complete(', 'star(', '(', ')', '-', ',', '0', '1', '2', '5', ' ', 'x'];
    fc.assert(
      fc.property(small(fc.oneof(soup(tokens), mutated(['cycle(6)', 'path(5)', '(0-1,1-2,2-0)']), fc.string({ maxLength: 20 }))), (src) => {
        cleanly(() => parseGraph(src));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('valid expressions parse', () => {
    for (const s of REP_VALID) expect(cleanly(() => parseRep(s))).not.toBeInstanceOf(ParalensError);
    for (const s of GROUP_VALID) expect(cleanly(() => parseGroup(s))).not.toBeInstanceOf(ParalensError);
  });
});
