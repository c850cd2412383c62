import { DERIVED, EXEMPTIONS } from '../../catalogue/exemptions.js';

/**
 * The layers of the catalogue that do not make the ONNX round trip (export, then import, gives
 * the same function — test/io/onnx-roundtrip.test.ts checks every other one), each with why:
 * every kind the ONNX export has no rule for (src/catalogue/exemptions.ts, the one list of
 * those), and the layers whose kind has a rule that refuses them or whose import is not
 * written. All of them are refused by export or import with a message naming them, never
 * written wrong. docs/onnx.md shows this list.
 */
export const ONNX_ROUND_TRIP_EXEMPT: Readonly<Record<string, string>> = {
  ...EXEMPTIONS['ONNX export'],
  emlp: DERIVED,
  scan: 'only the scans of lstm, gru and rnn cells have ONNX operators (LSTM, GRU, RNN): export refuses a scan of any other cell, naming it',
  stack: "stacked cells run by one scan: ONNX's LSTM/GRU/RNN have one cell each, so export refuses the stack, naming it",
};
