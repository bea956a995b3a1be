"""The ONNX router session's threads sleep between runs unless `router.spin_wait` asks them to spin, and the
switch changes nothing in what it computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from serve.router.encoding import TextEncoder
from serve.router.manifest import read_manifest
from serve.router.onnx import OnnxSession

SPINNING = "session.intra_op.allow_spinning"


def test_spin_wait_is_off_by_default_and_does_not_change_the_logits(router_dir: Path) -> None:
    manifest = read_manifest(router_dir)
    path = manifest.variant_path(router_dir, None)
    quiet, spinning = OnnxSession(path), OnnxSession(path, spin_wait=True)
    assert quiet.session.get_session_options().get_session_config_entry(SPINNING) == "0"
    assert spinning.session.get_session_options().get_session_config_entry(SPINNING) == "1"
    batch = TextEncoder(router_dir / "tokenizer.json", manifest.max_length).encode(
        ["Where is my parcel?", "我的快递到哪了"]
    )
    np.testing.assert_array_equal(
        quiet.logits(batch.input_ids, batch.attention_mask),
        spinning.logits(batch.input_ids, batch.attention_mask),
    )
