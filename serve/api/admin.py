"""Operator endpoints: POST /admin/knowledge/reload (also on SIGHUP and by `csreply kb reload`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from serve.api.deps import OpsDep, ServicesDep
from serve.errors import InvalidRequest
from serve.knowledge.entries import KnowledgeError

router = APIRouter()


@router.post(
    "/admin/knowledge/reload",
    responses={400: {"description": "the knowledge base on disk is invalid; the one in use stays"}},
)
async def reload_knowledge(services: ServicesDep, ops: OpsDep) -> dict[str, Any]:
    """Load and index the knowledge base again, then swap it in; requests in flight keep the old one."""
    store = services.knowledge
    previous = store.digest
    try:
        fresh = await store.reload()
    except KnowledgeError as exc:
        ops.metrics.knowledge_reloads.labels("invalid").inc()
        raise InvalidRequest(str(exc), param="knowledge") from exc
    ops.metrics.knowledge_reloads.labels("ok").inc()
    if fresh is None:
        return {"enabled": False}
    return {
        "enabled": True,
        "digest": fresh.digest,
        "previous_digest": previous,
        "entries": fresh.size,
        "expired": fresh.expired,
        "dense": fresh.dense,
    }
