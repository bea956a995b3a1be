"""OpenAI `chat.completion.chunk` frames from byte templates: a stream's id, created and model are rendered
once, so a content chunk costs one orjson call on the delta text and one concatenation.

The bytes parse to exactly what `ChatCompletionChunk(...).model_dump()` gives (same keys, same order;
`delta` without its unset fields; `usage` present only when the client asked for it): the openai client
and LangChain parse them unchanged (tests/api/test_chunk_templates.py checks against the pydantic model).
"""

from __future__ import annotations

from serve.api.sse import Frame, dumps


class ChunkTemplates:
    def __init__(self, request_id: str, created: int, model: str, n: int, include_usage: bool) -> None:
        head = (b'data: {"id":' + dumps(request_id) + b',"object":"chat.completion.chunk","created":'
                + str(int(created)).encode() + b',"model":' + dumps(model) + b',"choices":[')
        self._choice_heads = [head + b'{"index":%d,"delta":' % i for i in range(n)]
        self._usage_null = b',"usage":null' if include_usage else b""
        self._content_heads = [h + b'{"content":' for h in self._choice_heads]
        self._content_tail = b'},"finish_reason":null,"logprobs":null}]' + self._usage_null + b"}\n\n"
        self._include_usage = include_usage

    def role(self, index: int) -> Frame:
        return (self._choice_heads[index] + b'{"role":"assistant","content":""},"finish_reason":null,'
                b'"logprobs":null}]' + self._usage_null + b"}\n\n")

    def content(self, index: int, text: str) -> Frame:
        return self._content_heads[index] + dumps(text) + self._content_tail

    def finish(self, index: int, reason: str, usage: tuple[int, int] | None = None) -> Frame:
        """The empty-delta chunk that carries finish_reason; `usage` = (prompt, completion) tokens, on the
        last chunk of the stream when the client asked for it."""
        tail = self._usage_null
        if usage is not None and self._include_usage:
            prompt, completion = usage
            tail = b',"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}' % (
                prompt, completion, prompt + completion)
        return (self._choice_heads[index] + b'{},"finish_reason":' + dumps(reason) + b',"logprobs":null}]'
                + tail + b"}\n\n")
