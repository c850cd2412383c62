import { named, plain, pyNumber } from './torch-module.js';
import type { TorchRule, TorchRuleSet } from './torch-module.js';

/**
 * The layers of src/nn as torch.nn modules. paralens already stores their parameters as
 * PyTorch does (dense weight [out,in] as nn.Linear; conv weight [O,C,k(,k)] as nn.Conv2d /
 * nn.Conv1d), so the names `weight` and `bias` carry over unchanged.
 */
const args = (m: { args: readonly (number | string)[] }): number[] => m.args as number[];
const conv =
  (cls: string): TorchRule =>
  ({ m }) => {
    const [i, o, k, s, p] = args(m);
    return named(m, `nn.${cls}(${i}, ${o}, ${k}, stride=${s}, padding=${p})`);
  };
const pool =
  (cls: string): TorchRule =>
  ({ m }) => {
    const [k, s] = args(m);
    return plain(`nn.${cls}(${k}, stride=${s})`);
  };

export const nnRules: TorchRuleSet = {
  rules: {
    dense: ({ m }) => named(m, `nn.Linear(${args(m)[0]}, ${args(m)[1]})`),
    sigmoid: () => plain('nn.Sigmoid()'),
    tanh: () => plain('nn.Tanh()'),
    relu: () => plain('nn.ReLU()'),
    softplus: () => plain('nn.Softplus()'),
    /** paralens's gelu is the tanh approximation. */
    gelu: () => plain("nn.GELU(approximate='tanh')"),
    leaky_relu: ({ m }) => plain(`nn.LeakyReLU(${pyNumber(args(m)[0]!)})`),
    softmax: () => plain('nn.Softmax(dim=-1)'),
    conv2d: conv('Conv2d'),
    conv1d: conv('Conv1d'),
    maxpool2d: pool('MaxPool2d'),
    avgpool2d: pool('AvgPool2d'),
    flatten: () => plain('nn.Flatten()'),
    globalavgpool: () => plain('GlobalAvgPool()', ['GlobalAvgPool']),
    tokens: () => plain('Tokens()', ['Tokens']),
  },
};
