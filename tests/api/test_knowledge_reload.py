"""Reloading the knowledge base while replies are in flight: nothing is lost, the new entries answer at once,
and an invalid knowledge base is refused with the old one kept (scripted router double: lexical retrieval)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import httpx
import pytest

from serve.app import create_app
from serve.config import GeneratorSettings, KnowledgeSettings, ReplySettings, Settings
from serve.knowledge.entries import KNOWLEDGE_DIR
from tests.api.test_reply import fixed_reply
from tests.conftest import lifespan
from tests.fakes import ScriptedFakeGenerator, ScriptedTestRouter

NEW_ENTRY = """
  - id: delivery-drone-trial
    title: Drone delivery trial
    questions: [do you deliver parcels by drone, is there a drone delivery in my town]
    text: >-
      Drone delivery is a trial in Lakeside only, for parcels up to 2 kg, and you can choose it at checkout
      there.
"""
DRONE = "do you deliver parcels by drone?"


@pytest.fixture
def knowledge(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE_DIR, root)
    return root


async def test_reload_under_load_loses_no_request(tmp_path: Path, knowledge: Path) -> None:
    settings = Settings(
        cache_dir=tmp_path,
        generator=GeneratorSettings(warmup=False),
        knowledge=KnowledgeSettings(path=knowledge),
        reply=ReplySettings(reply_bank=False),
    )
    router = ScriptedTestRouter({DRONE: ("product_presales_inquiry", 0.95)})
    app = create_app(settings, generator=ScriptedFakeGenerator(script=fixed_reply), router=router)
    messages = [
        "which courier do you use",
        "how long do refunds take",
        "我的退款多久到账",
        "where is my parcel",
        "can I use two coupons on one order",
        DRONE,
    ]
    async with lifespan(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            before = (await client.get("/ready")).json()["knowledge"]
            first = (
                await client.post(
                    "/v1/reply", json={"domain": "ecommerce", "message": DRONE, "stream": False}
                )
            ).json()
            assert "delivery-drone-trial" not in [c["id"] for c in first["citations"]]
            stop = asyncio.Event()
            results: list[httpx.Response] = []

            async def traffic() -> None:
                n = 0
                while not stop.is_set():
                    body = {"domain": "ecommerce", "message": messages[n % len(messages)], "stream": True}
                    results.append(await client.post("/v1/reply", json=body))
                    n += 1

            workers = [asyncio.create_task(traffic()) for _ in range(6)]
            await asyncio.sleep(0.2)
            with (knowledge / "ecommerce" / "en" / "delivery.yaml").open("a", encoding="utf-8") as fh:
                fh.write(NEW_ENTRY)
            reloads = [await client.post("/admin/knowledge/reload") for _ in range(2)]
            (knowledge / "ecommerce" / "en" / "broken.yaml").write_text(
                "version: 1\ndomain: ecommerce\nlang: en\nentries: [{id: Bad Id, title: x}]\n"
            )
            refused = await client.post("/admin/knowledge/reload")
            await asyncio.sleep(0.2)
            stop.set()
            await asyncio.gather(*workers)
            after = (await client.get("/ready")).json()["knowledge"]
            drone = (
                await client.post(
                    "/v1/reply", json={"domain": "ecommerce", "message": DRONE, "stream": False}
                )
            ).json()
    assert all(r.status_code == 200 for r in reloads)
    assert (
        reloads[0].json()["digest"] != before["digest"]
        and reloads[0].json()["entries"] == before["entries"] + 1
    )
    assert refused.status_code == 400
    message = refused.json()["error"]["message"]
    assert "broken.yaml" in message and "entries[0]" in message  # names the file and the entry
    assert (
        after["digest"] == reloads[-1].json()["digest"] and after["reloads"] == 2
    )  # the refused one changed nothing
    assert len(results) >= 12
    assert all(r.status_code == 200 and "event: done" in r.text for r in results)  # every reply finished
    assert drone["intent"]["route"] == "knowledge" and drone["citations"][0]["id"] == "delivery-drone-trial"
