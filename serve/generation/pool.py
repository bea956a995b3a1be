"""The engine pool: several generators behind one `Generator`, with weights (A/B split), sticky assignment,
a circuit breaker per member, failover before the first token, and periodic health checks.

* Assignment: a request that pins a member (`variant`) goes there; otherwise the hash of its `affinity`
  (session id, else request id) picks a member by weight, so a conversation stays on one variant.
* Failover: a member that fails before its first chunk is skipped and the next one (by weight, then
  configured order) is tried; `InvalidRequest` is the request's fault and is never retried. A failure after
  the first chunk ends that stream (the caller sends an `error` event): a half-written reply cannot move.
* Breakers open after `failures_to_open` failures before the first token or on a failed health check;
  after the cooldown exactly one request probes (half-open) while the others go to the next member; its
  first token or a passing health check closes the breaker, its failure re-opens it, and a probe cut short
  (cancelled) frees the probe slot for the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from serve.breaker import Breaker
from serve.errors import BackendUnavailable, GenerationFailed, InvalidRequest, ServeError
from serve.generation.base import (
    ChatMessage,
    GenerationChunk,
    GenerationRequest,
    Generator,
    GeneratorStats,
    ReportsUpstreams,
)

logger = logging.getLogger(__name__)


@dataclass
class PoolMember:
    name: str
    generator: Generator
    weight: float
    breaker: Breaker
    health_interval_s: float = 5.0
    served: int = 0
    failovers: int = 0  # requests this member could not start, handed on to another member


def bucket(key: str) -> float:
    """A stable point in [0, 1) for a key (the same in every process: no Python hash randomisation)."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def assign(key: str, members: Sequence[PoolMember]) -> PoolMember:
    """The member a key belongs to, by weight; members with weight 0 get no share."""
    weighted = [m for m in members if m.weight > 0]
    total = sum(m.weight for m in weighted)
    point = bucket(key) * total
    for member in weighted:
        point -= member.weight
        if point < 0:
            return member
    return weighted[-1]


class GeneratorPool:
    """Implements the Generator protocol over its members, and VariantRouting (its members are the
    variants)."""

    def __init__(self, members: list[PoolMember]) -> None:
        if not members or not any(m.weight > 0 for m in members):
            raise ValueError("the engine pool needs at least one member with a weight above 0")
        self.members = members
        self._by_name = {m.name: m for m in members}
        self._health_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------- Generator protocol
    @property
    def primary(self) -> Generator:
        return max(self.members, key=lambda m: m.weight).generator

    @property
    def name(self) -> str:
        return self.primary.name

    @property
    def model_name(self) -> str:
        return self.primary.model_name

    @property
    def model_names(self) -> list[str]:
        return list(dict.fromkeys(m.generator.model_name for m in self.members))

    @property
    def languages(self) -> tuple[str, ...]:
        """Languages every member writes well: failover may move a request to any of them."""
        common = set(self.members[0].generator.languages)
        for member in self.members[1:]:
            common &= set(member.generator.languages)
        return tuple(lang for lang in self.members[0].generator.languages if lang in common)

    def member(self, name: str) -> PoolMember:
        try:
            return self._by_name[name]
        except KeyError:
            raise InvalidRequest(
                f"no generator variant {name!r}; this server has {sorted(self._by_name)}",
                param="x-csreply-variant",
            ) from None

    # ------------------------------------------------------------- VariantRouting
    @property
    def engines(self) -> list[Generator]:
        return [m.generator for m in self.members]

    def check_variant(self, name: str) -> None:
        self.member(name)

    def variant_for(self, affinity: str) -> str:
        return assign(affinity, self.members).name

    def candidates(self, request: GenerationRequest) -> list[PoolMember]:
        """The assigned member first, then the others by weight (failover order)."""
        if request.variant is not None:
            first = self.member(request.variant)
        else:
            first = assign(request.affinity or request.request_id, self.members)
        rest = sorted((m for m in self.members if m is not first), key=lambda m: -m.weight)
        return [first, *rest]

    async def generate(self, request: GenerationRequest) -> AsyncGenerator[GenerationChunk, None]:
        errors: list[str] = []
        for member in self.candidates(request):
            breaker = member.breaker
            now = time.monotonic()
            state = breaker.state(now)
            if not breaker.admit(now):  # open, or half-open with its one probe already in flight
                errors.append(
                    f"{member.name}: circuit open"
                    if state == "open"
                    else f"{member.name}: circuit half-open, its probe is in flight"
                )
                continue
            probe = state == "half_open"  # this request is the member's one probe
            try:
                stream = member.generator.generate(request)
                try:
                    first = await anext(stream)
                except StopAsyncIteration:
                    await stream.aclose()
                    errors.append(f"{member.name}: ended without output")
                    breaker.record_failure(error="ended without output")
                    continue
                except InvalidRequest:
                    await stream.aclose()
                    raise
                except Exception as exc:  # noqa: BLE001 - any engine failure before the first token fails over
                    await stream.aclose()
                    message = exc.message if isinstance(exc, ServeError) else f"{type(exc).__name__}: {exc}"
                    breaker.record_failure(error=message)
                    member.failovers += 1
                    errors.append(f"{member.name}: {message}")
                    logger.warning(
                        "generator.failover member=%s state=%s error=%s",
                        member.name,
                        breaker.state(),
                        message,
                    )
                    continue
                breaker.record_success()  # the first token: the member serves again
            finally:
                if probe:  # succeeded, failed, or cut short (cancelled, bad request): the next probe may go
                    breaker.end_probe()
            member.served += 1
            # The member's stream is relayed here, not through a nested generator: one generator frame less
            # to resume for every chunk of every stream. Closing this generator closes (aborts) the stream.
            try:
                chunk = first
                while True:
                    yield replace(chunk, served_by=member.name) if chunk.finish_reason else chunk
                    if chunk.finish_reason:
                        break
                    try:
                        chunk = await anext(stream)
                    except StopAsyncIteration:
                        break
                    except ServeError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - an engine crash mid-stream is a typed error
                        raise GenerationFailed(f"generator {member.name} failed mid-stream: {exc}") from exc
            finally:
                await stream.aclose()
            return
        raise BackendUnavailable("no generator could take the request (" + "; ".join(errors) + ")")

    def count_prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        return max(m.generator.count_prompt_tokens(messages) for m in self.members)

    async def warmup(self) -> None:
        for member in self.members:
            try:
                await member.generator.warmup()
            except Exception as exc:  # noqa: BLE001 - a member that cannot warm up starts with an open breaker
                member.breaker.trip(error=f"warm-up failed: {exc}")
                logger.error("generator.warmup_failed member=%s error=%s", member.name, exc)

    async def check_health(self) -> None:
        """Ready while at least one member with traffic (or any member) can serve."""
        if not any(m.breaker.allows() for m in self.members):
            raise BackendUnavailable("every generator's circuit breaker is open")
        errors = []
        for member in self.members:
            try:
                await member.generator.check_health()
                return
            except Exception as exc:  # noqa: BLE001
                errors.append(f"{member.name}: {exc}")
        raise BackendUnavailable("no generator is healthy (" + "; ".join(errors) + ")")

    def stats(self) -> GeneratorStats:
        return self.primary.stats()

    def describe(self) -> list[dict[str, Any]]:
        """Per member: backend, model, weight, breaker state, counts (for /ready)."""
        out = []
        for m in self.members:
            entry: dict[str, Any] = {
                "name": m.name,
                "backend": m.generator.name,
                "model": m.generator.model_name,
                "weight": m.weight,
                "languages": list(m.generator.languages),
                "state": m.breaker.state(),
                "trips": m.breaker.trips,
                "served": m.served,
                "failovers": m.failovers,
                "last_error": m.breaker.last_error,
            }
            if isinstance(m.generator, ReportsUpstreams):
                entry["upstreams"] = m.generator.describe_upstreams()
            out.append(entry)
        return out

    @property
    def degraded(self) -> list[str]:
        return [f"generator:{m.name} circuit {m.breaker.state()}" for m in self.members if m.breaker.is_open]

    # ------------------------------------------------------------- health checks
    def start_health_checks(self) -> None:
        if self._health_task is None:
            self._health_task = asyncio.create_task(self._health_loop(), name="generator-pool-health")

    async def _health_loop(self) -> None:
        interval = min(m.health_interval_s for m in self.members)
        while True:
            await asyncio.sleep(interval)
            await self.check_members()

    async def check_members(self) -> None:
        """One round of health checks: a failure opens a member's breaker, a pass closes it."""
        for member in self.members:
            try:
                await member.generator.check_health()
            except Exception as exc:  # noqa: BLE001
                if not member.breaker.is_open:
                    logger.warning("generator.unhealthy member=%s error=%s", member.name, exc)
                member.breaker.trip(time.monotonic(), error=str(exc))
                continue
            if member.breaker.is_open:
                logger.info("generator.recovered member=%s", member.name)
                member.breaker.record_success()

    async def aclose(self) -> None:
        if self._health_task is not None:
            self._health_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._health_task
            self._health_task = None
        for member in self.members:
            await member.generator.aclose()
