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
 * carries over as it is. A scan of a named cell exports as its layer; folds, unfolds, stacks
 * and cells written as other morphisms have no torch.nn counterpart and are refused by name.
 */
const CLASSES: Readonly<Record<string, string>> = { lstm: 'LSTM', gru: 'GRU', rnn: 'RNN', mgu: 'MGU' };

const wrapper = (cls: string, what: string): string => `class ${cls}(nn.${cls}):
    """${what}: nn.${cls} (batch_first) from zero states, its outputs only (so that it composes in nn.Sequential)."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__(i, h, batch_first=True, bidirectional=bidirectional)

    def forward(self, x):
        return super().forward(x)[0]`;

const HELPERS: Record<string, string> = {
  LSTM: wrapper('LSTM', 'lstm(in,h)'),
  GRU: wrapper('GRU', 'gru(in,h)'),
  RNN: wrapper('RNN', 'rnn(in,h)'),
  MGU: `class MGU(nn.Module):
    """mgu(in,h): the minimal gated unit (Zhou et al. 2016) from the zero state, gates f, n laid out as nn.GRU lays out its own:
    f = σ(x·W_ifᵀ + b_if + h·W_hfᵀ + b_hf), n = tanh(x·W_inᵀ + b_in + (f ⊙ h)·W_hnᵀ + b_hn), h′ = (1 − f) ⊙ h + f ⊙ n."""
    def __init__(self, i, h, bidirectional=False):
        super().__init__()
        self.hidden_size = h
        self.suffixes = ['_l0', '_l0_reverse'] if bidirectional else ['_l0']
        for s in self.suffixes:
            self.register_parameter('weight_ih' + s, nn.Parameter(torch.zeros(2 * h, i)))
            self.register_parameter('weight_hh' + s, nn.Parameter(torch.zeros(2 * h, h)))
            self.register_parameter('bias_ih' + s, nn.Parameter(torch.zeros(2 * h)))
            self.register_parameter('bias_hh' + s, nn.Parameter(torch.zeros(2 * h)))

    def scan(self, x, s):
        w_ih, w_hh, b_ih, b_hh = (getattr(self, n + s) for n in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'))
        H = self.hidden_size
        xg = x @ w_ih.T + b_ih
        h, ys = x.new_zeros(x.shape[0], H), []
        for t in range(x.shape[1]):
            f = torch.sigmoid(xg[:, t, :H] + h @ w_hh[:H].T + b_hh[:H])
            n = torch.tanh(xg[:, t, H:] + (f * h) @ w_hh[H:].T + b_hh[H:])
            h = (1 - f) * h + f * n
            ys.append(h)
        return torch.stack(ys, 1)

    def forward(self, x):
        y = self.scan(x, '_l0')
        if len(self.suffixes) == 1:
            return y
        return torch.cat([y, self.scan(x.flip(1), '_l0_reverse').flip(1)], -1)`,
};

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
  helpers: HELPERS,
  rules: { lstm: rule, gru: rule, rnn: rule, mgu: rule, scan: rule, bidirectional: rule },
};
