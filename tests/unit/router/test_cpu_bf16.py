"""bfloat16 in the router build only where the CPU has it natively (emulated bf16 made a build 30x slower)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkpoints.cpu import Bf16Choice, bf16_support, cpu_flags, resolve_bf16, resolve_training_device
from checkpoints.router_config import load_router_config

REPO = Path(__file__).resolve().parents[3]
# flags of the machines in question (trimmed): an AMD EPYC with AVX2 only, and a Xeon with AMX
EPYC_AVX2 = frozenset("fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma bmi2 sha_ni".split())
XEON_AMX = frozenset(
    "sse4_2 avx avx2 avx512f avx512bw avx512vl avx512_vnni avx512_bf16 amx_tile amx_bf16".split()
)
AVX512_NO_BF16 = frozenset("avx avx2 avx512f avx512bw avx512vl avx512dq".split())


def test_avx2_cpu_has_no_native_bf16() -> None:
    choice = bf16_support(EPYC_AVX2, env={}, torch_check=lambda: False)
    assert not choice.enabled
    assert "no native bfloat16" in choice.reason


def test_avx512_without_the_bf16_extension_is_not_native() -> None:
    # oneDNN can run bf16 on plain AVX-512 (PyTorch's check says yes) but converts every value: not native
    assert not bf16_support(AVX512_NO_BF16, env={}, torch_check=lambda: True).enabled


def test_amx_cpu_has_native_bf16() -> None:
    choice = bf16_support(XEON_AMX, env={}, torch_check=lambda: True)
    assert choice.enabled
    assert "amx_bf16" in choice.reason and "avx512_bf16" in choice.reason


@pytest.mark.parametrize(
    "env",
    [
        {"ATEN_CPU_CAPABILITY": "avx2"},
        {"ONEDNN_MAX_CPU_ISA": "AVX2"},
        {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"},
        {"ATEN_CPU_CAPABILITY": "default"},
    ],
)
def test_isa_caps_in_the_environment_turn_it_off(env: dict[str, str]) -> None:
    """How a machine without bf16 is simulated on one with it: the build must follow the caps."""
    assert not bf16_support(XEON_AMX, env=env, torch_check=lambda: True).enabled


def test_flags_present_but_pytorch_refuses() -> None:
    assert not bf16_support(XEON_AMX, env={}, torch_check=lambda: False).enabled


def test_no_cpuinfo_falls_back_to_pytorch() -> None:
    assert bf16_support(None, env={}, torch_check=lambda: True).enabled is True
    assert bf16_support(None, env={}, torch_check=lambda: None).enabled is False
    assert bf16_support(frozenset(), env={}, torch_check=lambda: True).enabled is False


def test_shipped_router_configs_follow_the_cpu() -> None:
    """The default and public builds must not force bf16: on an AVX2-only CPU they train in float32."""
    no_bf16 = Bf16Choice(False, "the CPU has no native bfloat16")
    for name in ("default", "public"):
        config = load_router_config(REPO / "build_configs" / "router" / f"{name}.yaml")
        assert config.training.bf16 == "auto", name
        assert resolve_bf16(config.training.bf16, no_bf16).enabled is False, name
        assert resolve_bf16(config.training.bf16, Bf16Choice(True, "amx")).enabled is True, name


def test_forced_true_is_kept_but_warns() -> None:
    choice = resolve_bf16(True, Bf16Choice(False, "the CPU has no native bfloat16"))
    assert choice.enabled and "30x slower" in choice.reason
    assert resolve_bf16(False, Bf16Choice(True, "amx")).enabled is False


def test_real_process_with_avx2_caps_reports_no_bf16() -> None:
    """In a fresh interpreter with the simulated caps, both this module and PyTorch's oneDNN say no bf16."""
    code = (
        "import json, torch; from checkpoints.cpu import native_bf16; c = native_bf16(); "
        "print(json.dumps([c.enabled, c.reason, bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())]))"
    )
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    enabled, reason, torch_says = json.loads(out.stdout.strip().splitlines()[-1])
    assert enabled is False and "ATEN_CPU_CAPABILITY" in reason
    assert torch_says is False


def test_this_machines_flags_are_read() -> None:
    flags = cpu_flags()
    if flags is None:
        pytest.skip("no /proc/cpuinfo here")
    assert flags, "a Linux machine lists its CPU flags"


def test_training_device_auto_takes_a_gpu_and_its_bf16() -> None:
    on_gpu = resolve_training_device("auto", "auto", cuda=lambda: (True, True))
    assert on_gpu.device == "cuda" and on_gpu.bf16.enabled
    no_bf16_gpu = resolve_training_device("auto", "auto", cuda=lambda: (True, False))
    assert no_bf16_gpu.device == "cuda" and not no_bf16_gpu.bf16.enabled
    assert resolve_training_device("auto", False, cuda=lambda: (True, True)).bf16.enabled is False


def test_training_device_without_a_gpu_is_the_cpu_and_follows_its_bf16() -> None:
    chosen = resolve_training_device("auto", "auto", cuda=lambda: (False, False))
    assert chosen.device == "cpu"
    assert chosen.bf16 == resolve_bf16("auto")
    assert resolve_training_device("cpu", "auto", cuda=lambda: (True, True)).device == "cpu"
    with pytest.raises(RuntimeError, match="no usable CUDA GPU"):
        resolve_training_device("cuda", "auto", cuda=lambda: (False, False))


def test_router_build_hash_ignores_layout_but_not_code(tmp_path: Path) -> None:
    """A reformat or a comment keeps a router build current; a change in what the code does does not."""
    from checkpoints.router import code_digest

    original = tmp_path / "a.py"
    original.write_text("def f(x):\n    return x + 1\n")
    reformatted = tmp_path / "b.py"
    reformatted.write_text(
        '"""Module."""\n# why\ndef f(x):  # note\n    """Adds one."""\n    return (\n        x + 1\n    )\n'
    )
    changed = tmp_path / "c.py"
    changed.write_text("def f(x):\n    return x + 2\n")
    falsy = tmp_path / "d.py"
    falsy.write_text("def f(x):\n    return x + 0\n")
    false = tmp_path / "e.py"
    false.write_text("def f(x):\n    return x + False\n")
    assert code_digest(original) == code_digest(reformatted)
    assert code_digest(original) != code_digest(changed)
    assert code_digest(falsy) != code_digest(false)  # empty fields are dropped, falsy values are not
