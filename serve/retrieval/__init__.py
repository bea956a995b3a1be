"""Hybrid search over short team-written texts (knowledge-base entries, reply-bank situations): BM25 over
English words and Chinese characters, plus dense vectors from the router's encoder where it has them."""

from __future__ import annotations

from typing import Any

_LIMIT: Any = None


def one_blas_thread() -> None:
    """numpy's BLAS on one thread for the rest of the process. Retrieval's matrix products are small (a few
    thousand rows of 384), and BLAS threads that spin-wait for each other on busy cores turned a 1 ms search
    into 16 ms (measured with the server's other threads at work). PyTorch and ONNX Runtime keep their own
    thread pools; this touches only the BLAS that numpy loaded."""
    global _LIMIT
    if _LIMIT is None:
        from threadpoolctl import threadpool_limits

        _LIMIT = threadpool_limits(1, user_api="blas")
