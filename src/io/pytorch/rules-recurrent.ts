import { quote } from '../../errors.js';
import { recurrentInfo } from '../../nn/recurrent/index.js';
import type { Para } from '../../para/para.js';
import { ExportError } from '../errors.js';
import type { TorchModule, TorchRule, TorchRuleSet } from './torch-module.js';

/**
 * The recurrent layers as torch modules: lstm, gru and rnn as nn.LSTM, nn.GRU and nn.RNN
 * (batch_first, from zero states, their outputs only so that they compose in nn.Sequential;
 * bidirectional=True for bidirectional(…)), mgu as the same formulas written out. paralens keeps
 * PyTorch's parameter names and gate orders (weight_ih_l0, …, …_reverse), so the state_dict
 * carries over as it is (the classes are python/layers.py's). A scan of a named cell exports as its layer; folds, unfolds, stacks
 * and cells written as other morphisms have no torch.nn counterpart and are refused by name.
 */
const CLASSES: Readonly<Record<string, string>> = { lstm: 'LSTM', gru: 'GRU', rnn: 'RNN', mgu: 'MGU' };

const NAMES = ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0'];

function recurrentModule(m: Para): TorchModule {
  const info = recurrentInfo(m);
  const cls = info && CLASSES[info.cell.kind.replace(/_cell$/, '')];
  if (!info || !cls || (info.role !== 'scan' && info.role !== 'bidirectional'))
    throw new ExportError(
      `cannot export ${quote(m)} to PyTorch: only rnn, lstm, gru and mgu layers (scans of their cells) and bidirectional ones have torch.nn counterparts`,
    );
  const bi = info.role === 'bidirectional';
  return {
    code: `${cls}(${info.cell.input}, ${info.cell.output}${bi ? ', bidirectional=True' : ''})`,
    params: bi ? [...NAMES, ...NAMES.map((n) => `${n}_reverse`)] : NAMES,
    buffers: [],
    helpers: [cls],
  };
}

const rule: TorchRule = ({ m }) => recurrentModule(m);

export const recurrentRules: TorchRuleSet = {
  rules: { lstm: rule, gru: rule, rnn: rule, mgu: rule, scan: rule, bidirectional: rule },
};
