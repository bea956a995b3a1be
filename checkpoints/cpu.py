"""What the CPU running a build can do natively, decided at run time (the machines a build runs on differ).

bfloat16 autocast on a CPU without native bf16 instructions is emulated: measured on a 2-core AMD EPYC
with AVX2 only, one Linear(384->1536) forward+backward on 2,048 tokens took 84 ms in float32 and 2,529 ms
under bf16 autocast (30x), which turned a 5-minute router build into 4.5 hours. So bf16 is used only where
the CPU has it (AVX512_BF16 or AMX on x86, the BF16 extension on Arm) and PyTorch's oneDNN will use it.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# x86 flags (/proc/cpuinfo "flags") and Arm features ("Features") that mean bf16 arithmetic in hardware
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16", "bf16"})
# ONEDNN_MAX_CPU_ISA values that still allow oneDNN's bf16 kernels (anything below caps them off)
_ONEDNN_BF16_ISAS = ("AVX512_CORE_BF16", "AVX512_CORE_AMX", "AVX10_1_512", "AVX10_2_512", "ALL", "DEFAULT")


@dataclass(frozen=True, slots=True)
class Bf16Choice:
    enabled: bool
    reason: str


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str] | None:
    """The CPU's feature flags from the kernel, or None where they cannot be read (not Linux)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def _torch_bf16_check() -> bool | None:
    """PyTorch's own answer (oneDNN's effective ISA, honouring ONEDNN_MAX_CPU_ISA); None if unavailable."""
    try:
        import torch

        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (ImportError, AttributeError, RuntimeError):
        return None


def native_bf16() -> Bf16Choice:
    """Whether bfloat16 compute is native on this machine's CPU, with the reason (build log and manifest)."""
    return bf16_support(cpu_flags(), os.environ, _torch_bf16_check)


def bf16_support(
    flags: frozenset[str] | None, env: Mapping[str, str], torch_check: Callable[[], bool | None]
) -> Bf16Choice:
    """`native_bf16`'s decision from its inputs: CPU flags (None: unknown), environment, PyTorch's check."""
    capability = env.get("ATEN_CPU_CAPABILITY", "").strip().lower()
    if capability and not capability.startswith("avx512"):
        return Bf16Choice(False, f"ATEN_CPU_CAPABILITY={capability} limits PyTorch below AVX-512")
    isa = env.get("ONEDNN_MAX_CPU_ISA", "").strip().upper()
    if isa and not isa.startswith(_ONEDNN_BF16_ISAS):
        return Bf16Choice(False, f"ONEDNN_MAX_CPU_ISA={isa} limits oneDNN below its bf16 kernels")
    if flags is None:
        checked = torch_check()
        return Bf16Choice(
            bool(checked),
            f"no CPU flags on {platform.system()}; PyTorch says bf16 "
            f"{'is' if checked else 'is not'} supported",
        )
    found = sorted(_BF16_FLAGS & flags)
    if not found:
        return Bf16Choice(False, "the CPU has no native bfloat16 (no avx512_bf16/amx_bf16 flag)")
    if torch_check() is False:
        return Bf16Choice(False, f"the CPU has {', '.join(found)} but PyTorch's oneDNN will not use bf16")
    return Bf16Choice(True, f"the CPU has native bfloat16 ({', '.join(found)})")


def resolve_bf16(setting: bool | Literal["auto"], choice: Bf16Choice | None = None) -> Bf16Choice:
    """A build's `bf16` setting made concrete: `auto` follows the CPU; true/false are kept as written (a
    forced true on a CPU without bf16 says how slow it will be)."""
    choice = native_bf16() if choice is None else choice
    if setting == "auto":
        return choice
    if setting and not choice.enabled:
        return Bf16Choice(
            True,
            f"bf16: true in the config, although {choice.reason}: expect training about 30x "
            "slower than float32 (set bf16: auto)",
        )
    return Bf16Choice(bool(setting), f"bf16: {str(bool(setting)).lower()} in the config")


@dataclass(frozen=True, slots=True)
class TrainingDevice:
    device: Literal["cpu", "cuda"]
    bf16: Bf16Choice


def resolve_training_device(
    setting: Literal["auto", "cpu", "cuda"],
    bf16_setting: bool | Literal["auto"],
    cuda: Callable[[], tuple[bool, bool]] | None = None,
) -> TrainingDevice:
    """Where a build fine-tunes and whether under bf16 autocast. `cuda` answers (a GPU is usable, it computes
    bf16 natively); by default PyTorch is asked. On a GPU `auto` bf16 follows the GPU, not the CPU."""
    available, gpu_bf16 = (cuda or _torch_cuda)()
    if setting == "cuda" and not available:
        raise RuntimeError(
            "training.device is cuda, but PyTorch sees no usable CUDA GPU (set device: auto or cpu)"
        )
    if setting == "cpu" or not available:
        return TrainingDevice("cpu", resolve_bf16(bf16_setting))
    if bf16_setting == "auto":
        reason = "the GPU computes bfloat16 natively" if gpu_bf16 else "the GPU has no native bfloat16"
        return TrainingDevice("cuda", Bf16Choice(gpu_bf16, reason))
    return TrainingDevice(
        "cuda", Bf16Choice(bool(bf16_setting), f"bf16: {str(bool(bf16_setting)).lower()} in the config")
    )


def _torch_cuda() -> tuple[bool, bool]:
    import torch

    if not torch.cuda.is_available():
        return False, False
    return True, bool(torch.cuda.is_bf16_supported())
