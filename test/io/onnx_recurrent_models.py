"""Writes the ONNX files test/io/onnx-recurrent.test.ts reads: PyTorch's nn.LSTM, nn.GRU and nn.RNN
(batch_first, one layer; forward and bidirectional) as torch.onnx.export writes them (opset 14),
each a module returning the layer's outputs, with random weights and biases.

  python3 test/io/onnx_recurrent_models.py DIR   → DIR/{lstm,gru,rnn}{,_bi}.onnx
"""
import os
import sys

import torch


class Outputs(torch.nn.Module):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)[0]


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    for name, cls in (("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU), ("rnn", torch.nn.RNN)):
        for bi in (False, True):
            m = Outputs(cls(3, 5, batch_first=True, bidirectional=bi))
            with torch.no_grad():
                for p in m.parameters():
                    p.normal_(0, 0.5)
            path = os.path.join(out, f"{name}{'_bi' if bi else ''}.onnx")
            torch.onnx.export(m, torch.randn(2, 6, 3), path, opset_version=14, input_names=["input"], output_names=["output"], dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})


main()
