"""The server's own cost per streamed token, with an engine that costs nothing (`ZeroCostTestGenerator`).

The server runs in a subprocess (`python -m serve.testing.server`, the real app under the same uvicorn
settings as `csreply run`); a client in another process opens N concurrent streams over raw sockets (cheap:
large reads, no SSE parsing) and the server process's CPU time is read before and after. Printed per
endpoint and stream count: server CPU microseconds per streamed token, tokens/s per core, tokens per SSE
content frame, and the client's own CPU share (if near 100 % of a core, the client was the limit).

    python bench/server_cost.py                              # chat + reply at 64 and 256 streams
    python bench/server_cost.py --per-token-chunks           # engine hands out one chunk per token
    python bench/server_cost.py --hf-ratio                   # + SSE/direct ratio with the real hf engine
    python bench/server_cost.py --workers 2 --endpoints chat # several server processes on one port

The engine writes distinct English-shaped words with a full stop every 16 (see serve/testing/zero_cost.py),
so /v1/reply's loop guard lets every token through; the server gets reply.max_sentences = max_tokens/16 + 1,
and any request that ends other than by length counts as an error.

This machine is shared and noisy: CPU time per token is steadier than wall time; compare within a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.questions import QUESTIONS  # noqa: E402

ECOMMERCE = {1, 3, 8, 9, 10, 11, 12, 15}
# /v1/reply streams only questions the router sends to the model (7, 9 and 15 get reviewed canned replies).
LLM_ROUTED = [i for i in range(len(QUESTIONS)) if i not in {7, 9, 15}]
PATHS = {"chat": "/v1/chat/completions", "reply": "/v1/reply"}
# SSE frames per request that carry no content: chat = role + finish + [DONE]; reply = intent + done.
OVERHEAD_FRAMES = {"chat": 3, "reply": 2}
COMPLETION_RE = re.compile(rb'"completion_tokens": ?(\d+)')
FINISH_RE = re.compile(rb'"finish_reason": ?"(\w+)"')
# The engine's text ends a sentence every 16 tokens; /v1/reply's loop guard ends a reply after
# reply.max_sentences sentences (5 by default), so the benchmark server allows as many as max_tokens can hold:
# every request then streams max_tokens tokens through the guard, which checks every sentence as usual.
SENTENCES_ENV = "CSREPLY_REPLY__MAX_SENTENCES"


def request_body(endpoint: str, i: int, max_tokens: int, temperature: float = 1.0) -> bytes:
    question = QUESTIONS[i % len(QUESTIONS)]
    if endpoint == "chat":
        body: dict[str, Any] = {
            "messages": [{"role": "user", "content": question}],
            "max_tokens": max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": temperature,
        }
    else:
        # A customer fact per request: it reaches the prompt and keeps the reply cache out of the way.
        q = LLM_ROUTED[i % len(LLM_ROUTED)]
        body = {
            "domain": "ecommerce" if q in ECOMMERCE else "telecom",
            "message": QUESTIONS[q],
            "max_tokens": max_tokens,
            "context": {"customer_ref": f"C{i:06d}"},
        }
    return json.dumps(body).encode()


# --------------------------------------------------------------------------- client (its own process)
async def _one(host: str, port: int, path: str, body: bytes) -> tuple[int, int, str | None, str | None]:
    """Tokens (the server's usage count), SSE frames, an error, and the finish reason of one request."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            b"POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Connection: close\r\n\r\n%s" % (path.encode(), host.encode(), len(body), body)
        )
        frames, tail, first = 0, b"", True
        while data := await reader.read(262144):
            if first:
                first = False
                if not data.startswith(b"HTTP/1.1 200"):
                    return 0, 0, data.split(b"\r\n", 1)[0].decode(errors="replace"), None
            frames += data.count(b"data:")
            tail = (tail + data)[-4096:]
        found = COMPLETION_RE.findall(tail)
        finish = FINISH_RE.findall(tail)
        reason = finish[-1].decode() if finish else None
        return (
            (int(found[-1]), frames, None, reason) if found else (0, frames, "no usage in the stream", reason)
        )
    finally:
        writer.close()


async def _client(
    host: str, port: int, endpoint: str, streams: int, per_stream: int, max_tokens: int, temperature: float
) -> dict[str, Any]:
    path = PATHS[endpoint]
    tokens = frames = requests = 0
    errors: list[str] = []
    finish_reasons: dict[str, int] = {}

    async def worker(w: int) -> None:
        nonlocal tokens, frames, requests
        for r in range(per_stream):
            got, seen, error, reason = await _one(
                host, port, path, request_body(endpoint, w * per_stream + r, max_tokens, temperature)
            )
            finish_reasons[str(reason)] = finish_reasons.get(str(reason), 0) + 1
            tokens += got
            frames += seen
            requests += 1
            if error:
                errors.append(error)

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(worker(w) for w in range(streams)))
    return {
        "tokens": tokens,
        "frames": frames,
        "requests": requests,
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "finish_reasons": finish_reasons,
        "wall_s": time.perf_counter() - wall,
        "client_cpu_s": time.process_time() - cpu,
    }


def run_client(
    port: int, endpoint: str, streams: int, per_stream: int, max_tokens: int, temperature: float = 1.0
) -> dict[str, Any]:
    """Run the client in a separate process, so its CPU never counts as the server's."""
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--client",
            endpoint,
            "--port",
            str(port),
            "--streams",
            str(streams),
            "--requests-per-stream",
            str(per_stream),
            "--max-tokens",
            str(max_tokens),
            "--temperature",
            str(temperature),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- server (a subprocess)
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    def __init__(
        self,
        engine: str,
        workers: int = 1,
        per_token_chunks: bool = False,
        log: Path | None = None,
        tree: Path | None = None,
        extra_path: str | None = None,
        max_sentences: int | None = None,
    ):
        self.port = free_port()
        tree = tree or Path(__file__).resolve().parents[1]
        cmd = [
            sys.executable,
            "-m",
            "serve.testing.server",
            "--engine",
            engine,
            "--port",
            str(self.port),
            "--workers",
            str(workers),
        ]
        if per_token_chunks:
            cmd.append("--per-token-chunks")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tree), extra_path]))}
        if max_sentences is not None:
            env[SENTENCES_ENV] = str(max_sentences)
        self.log = open(log or os.devnull, "w")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=self.log, cwd=tree)

    def wait_ready(self, timeout: float = 300.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/ready", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError("server did not become ready")

    def cpu_seconds(self) -> float:
        """User + system CPU of the server process and its children (uvicorn workers)."""
        import psutil

        root = psutil.Process(self.proc.pid)
        total = 0.0
        for p in [root, *root.children(recursive=True)]:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:
                pass
        return total

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def measure(
    server: ServerProcess, endpoint: str, streams: int, per_stream: int, max_tokens: int
) -> dict[str, Any]:
    before = server.cpu_seconds()
    result = run_client(server.port, endpoint, streams, per_stream, max_tokens)
    cpu = server.cpu_seconds() - before
    tokens = result["tokens"]
    # Every request must run to max_tokens: a reply the loop guard ended early ("loop", "sentence_limit")
    # would spread the per-request cost over a handful of tokens.
    short = sum(n for reason, n in result["finish_reasons"].items() if reason != "length")
    content_frames = result["frames"] - OVERHEAD_FRAMES[endpoint] * result["requests"]
    return {
        "endpoint": endpoint,
        "streams": streams,
        "requests": result["requests"],
        "tokens": tokens,
        "errors": result["errors"] + short,
        "first_error": result["first_error"]
        or (f"finish reasons {result['finish_reasons']}" if short else None),
        "finish_reasons": result["finish_reasons"],
        "server_cpu_s": round(cpu, 3),
        "wall_s": round(result["wall_s"], 3),
        "us_per_token": round(cpu / tokens * 1e6, 2) if tokens else None,
        "tokens_per_s_per_core": round(tokens / cpu) if cpu and tokens else None,
        "tokens_per_s_wall": round(tokens / result["wall_s"]) if tokens else None,
        "tokens_per_frame": round(tokens / content_frames, 2) if content_frames > 0 else None,
        "client_cpu_share": round(result["client_cpu_s"] / result["wall_s"], 2),
    }


# --------------------------------------------------------------------------- the engine called directly
async def _direct(
    generator: Any, streams: int, max_tokens: int, tag: str, temperature: float
) -> dict[str, float]:
    from serve.generation.base import ChatMessage, GenerationRequest

    tokens = 0

    async def one(i: int) -> None:
        nonlocal tokens
        request = GenerationRequest(
            f"{tag}-{i}",
            (ChatMessage("user", QUESTIONS[i % len(QUESTIONS)]),),
            max_tokens,
            temperature=temperature,
        )
        async for chunk in generator.generate(request):
            if chunk.finish_reason:
                tokens += chunk.completion_tokens or 0

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(streams)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "tokens": tokens,
        "wall_s": round(wall, 3),
        "tokens_per_s_wall": round(tokens / wall, 1),
        "us_per_token": round(cpu / tokens * 1e6, 2),
    }


def zero_cost_direct(streams: int, max_tokens: int) -> dict[str, float]:
    from serve.testing.zero_cost import ZeroCostTestGenerator

    return asyncio.run(_direct(ZeroCostTestGenerator(), streams, max_tokens, "direct", 1.0))


def hf_ratio(streams: int, max_tokens: int, rounds: int) -> dict[str, Any]:
    """Tokens/s through HTTP/SSE over tokens/s of the same engine called in-process; greedy, same prompts,
    so both sides produce the same tokens. Rounds alternate (direct, http, http, direct, ...)."""
    from serve.config import load_settings
    from serve.generation.hf import HfGenerator

    server = ServerProcess("hf")
    settings = load_settings()
    generator = HfGenerator(settings.generator, settings.generator_model_dir)
    generator.load()
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(generator.warmup())
        server.wait_ready()
        run_client(server.port, "chat", 2, 1, 8, temperature=0.0)  # warm the server's path
        direct: list[float] = []
        http: list[float] = []
        for r in range(rounds):
            for side in ("direct", "http") if r % 2 == 0 else ("http", "direct"):
                if side == "direct":
                    got = loop.run_until_complete(_direct(generator, streams, max_tokens, f"r{r}", 0.0))
                    direct.append(got["tokens_per_s_wall"])
                else:
                    res = run_client(server.port, "chat", streams, 1, max_tokens, temperature=0.0)
                    if res["errors"]:
                        raise RuntimeError(f"http errors: {res['first_error']}")
                    http.append(res["tokens"] / res["wall_s"])
                print(
                    f"  hf round {r} {side}: {(direct if side == 'direct' else http)[-1]:.1f} tok/s",
                    file=sys.stderr,
                )
        loop.run_until_complete(generator.aclose())
    finally:
        loop.close()
        server.stop()
    d, h = statistics.median(direct), statistics.median(http)
    return {
        "streams": streams,
        "max_tokens": max_tokens,
        "direct_tok_s": round(d, 1),
        "http_tok_s": round(h, 1),
        "ratio": round(h / d, 3),
        "direct_rounds": direct,
        "http_rounds": [round(x, 1) for x in http],
    }


# --------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--endpoints", default="chat,reply")
    parser.add_argument("--streams", default="64,256")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--requests-per-stream", type=int, default=2)
    parser.add_argument("--per-token-chunks", action="store_true", help="engine: one chunk per token")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hf-ratio", action="store_true", help="also SSE/direct with the real hf engine")
    parser.add_argument("--hf-streams", type=int, default=64)
    parser.add_argument("--hf-max-tokens", type=int, default=32)
    parser.add_argument("--hf-rounds", type=int, default=2)
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="TREE",
        help="another checkout (with serve/testing) measured alternately in the same run",
    )
    parser.add_argument(
        "--current-extra-path",
        metavar="DIR",
        help="prepend to the current server's PYTHONPATH (e.g. a folder with uvloop and httptools, "
        "which uvicorn then uses); with --baseline . this measures their effect alone",
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--server-log", type=Path)
    parser.add_argument("--client", choices=sorted(PATHS), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--temperature", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.client:
        streams = int(args.streams)
        print(
            json.dumps(
                asyncio.run(
                    _client(
                        "127.0.0.1",
                        args.port,
                        args.client,
                        streams,
                        args.requests_per_stream,
                        args.max_tokens,
                        args.temperature,
                    )
                )
            )
        )
        return 0

    endpoints = args.endpoints.split(",")
    stream_counts = [int(s) for s in args.streams.split(",")]
    print(
        "server_cost: zero-cost test engine "
        f"({'one chunk per token' if args.per_token_chunks else 'coalescing'}), {args.max_tokens} tokens x "
        f"{args.requests_per_stream} requests per stream, workers={args.workers}, cores "
        f"visible={os.cpu_count()}",
        file=sys.stderr,
    )
    rows = []
    trees = (
        {"current": None} if args.baseline is None else {"baseline": args.baseline.resolve(), "current": None}
    )
    servers = {
        name: ServerProcess(
            "zero-cost",
            args.workers,
            args.per_token_chunks,
            args.server_log,
            tree,
            args.current_extra_path if name == "current" else None,
            max_sentences=args.max_tokens // 16 + 1,
        )
        for name, tree in trees.items()
    }
    try:
        for server in servers.values():
            server.wait_ready()
            for endpoint in endpoints:
                run_client(server.port, endpoint, 4, 1, 16)  # warm-up: first router call, imports
        for endpoint in endpoints:
            for streams in stream_counts:
                for name, server in servers.items():  # side by side: each point alternates the trees
                    rows.append(
                        {
                            "tree": name,
                            **measure(server, endpoint, streams, args.requests_per_stream, args.max_tokens),
                        }
                    )
                    print(f"  {rows[-1]}", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    direct = {s: zero_cost_direct(s, args.max_tokens) for s in stream_counts}

    print(
        f"\n{'tree':9}{'endpoint':10}{'streams':>8}{'µs/token':>10}{'tok/s/core':>12}{'tok/s wall':>12}"
        f"{'tok/frame':>10}{'client cpu':>11}{'errors':>8}"
    )
    for row in rows:
        print(
            f"{row['tree']:9}{row['endpoint']:10}{row['streams']:>8}{row['us_per_token'] or 0:>10.1f}"
            f"{row['tokens_per_s_per_core'] or 0:>12,}{row['tokens_per_s_wall'] or 0:>12,}"
            f"{row['tokens_per_frame'] or 0:>10.2f}{row['client_cpu_share']:>11.2f}{row['errors']:>8}"
        )
    if args.baseline is not None:
        for i in range(0, len(rows), 2):
            base, cur = rows[i], rows[i + 1]
            if base["us_per_token"] and cur["us_per_token"]:
                print(
                    f"{cur['endpoint']} at {cur['streams']} streams: "
                    f"{base['us_per_token'] / cur['us_per_token']:.2f}x "
                    "less server CPU per token than the baseline"
                )
    for streams, d in direct.items():
        print(f"engine alone (in-process, {streams} streams): {d['us_per_token']:.2f} µs/token")
    result: dict[str, Any] = {
        "rows": rows,
        "engine_direct": direct,
        "max_tokens": args.max_tokens,
        "per_token_chunks": args.per_token_chunks,
        "workers": args.workers,
    }
    if args.hf_ratio:
        ratio = hf_ratio(args.hf_streams, args.hf_max_tokens, args.hf_rounds)
        result["hf_sse_vs_direct"] = ratio
        print(
            f"hf engine, {ratio['streams']} streams, {ratio['max_tokens']} tokens, greedy: direct "
            f"{ratio['direct_tok_s']} tok/s, HTTP/SSE {ratio['http_tok_s']} tok/s, ratio {ratio['ratio']:.3f}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
