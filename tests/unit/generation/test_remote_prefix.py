"""How the openai backend hands the reply's fact lead (GenerationRequest.prefix) to a remote server: as a
final assistant message to continue where the servers can (vLLM/TGI `continue_final_message`), else as an
instruction in the system prompt. The request bodies are built by the real backend; nothing is sent."""

from __future__ import annotations

from serve.config import MemberSettings
from serve.generation.base import ChatMessage, GenerationRequest
from serve.generation.remote import RemoteOpenAIGenerator

LEAD = "Your order A1 shows as shipped."
MESSAGES = (ChatMessage("system", "You are the assistant."), ChatMessage("user", "where is my order"))


def body(prefill: bool, prefix: str = LEAD) -> dict:
    member = MemberSettings(
        name="remote", backend="openai", base_urls=["http://127.0.0.1:9/v1"], model="m", prefill=prefill
    )
    return RemoteOpenAIGenerator(member).payload(GenerationRequest("r1", MESSAGES, 32, prefix=prefix))


def test_a_server_that_continues_messages_gets_the_lead_as_the_assistant_turn() -> None:
    sent = body(prefill=True)
    assert sent["messages"][-1] == {"role": "assistant", "content": LEAD}
    assert sent["continue_final_message"] is True and sent["add_generation_prompt"] is False


def test_otherwise_the_system_prompt_says_where_the_reply_stands() -> None:
    sent = body(prefill=False)
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert LEAD in sent["messages"][0]["content"] and "continue_final_message" not in sent


def test_no_prefix_leaves_the_request_as_it_was() -> None:
    for prefill in (True, False):
        sent = body(prefill, prefix="")
        assert sent["messages"] == [{"role": m.role, "content": m.content} for m in MESSAGES]
        assert "continue_final_message" not in sent


def test_local_engines_open_the_assistant_turn_with_the_prefix() -> None:
    """hf and trtllm build prompt ids with ChatTokenizer.encode: the prefix follows the generation prompt,
    so the model's first token continues the lead (the real SmolLM2 tokenizer)."""
    from serve.config import SMOLLM2_DIRNAME, default_cache_dir
    from serve.generation.chat import ChatTokenizer

    chat = ChatTokenizer.from_dir(default_cache_dir() / "models" / SMOLLM2_DIRNAME)
    plain, led = chat.encode(MESSAGES), chat.encode(MESSAGES, LEAD)
    assert led[: len(plain)] == plain and chat.decode(led[len(plain) :]) == LEAD


def test_ignore_eos_is_forwarded_only_when_asked() -> None:
    member = MemberSettings(name="remote", backend="openai", base_urls=["http://127.0.0.1:9/v1"], model="m")
    generator = RemoteOpenAIGenerator(member)
    assert generator.payload(GenerationRequest("r1", MESSAGES, 32, ignore_eos=True))["ignore_eos"] is True
    assert "ignore_eos" not in generator.payload(GenerationRequest("r2", MESSAGES, 32))
