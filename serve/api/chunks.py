"""OpenAI `chat.completion.chunk` frames from byte templates: a stream's id, created and model are rendered
once, so a content chunk costs one orjson call on the delta text and one concatenation.

The bytes parse to exactly what `ChatCompletionChunk(...).model_dump()` gives (same keys, same order;
`delta` without its unset fields; `usage` null on every chunk and counted in one extra chunk with empty
`choices` when the client asked for it, as OpenAI sends it): the openai client
and LangChain parse them unchanged (tests/api/test_chunk_templates.py checks against the pydantic model).
"""

from __future__ import annotations

from serve.api.sse import Frame, dumps


class ChunkTemplates:
    def __init__(self, request_id: str, created: int, model: str, n: int, include_usage: bool) -> None:
        head = (
            b'data: {"id":'
            + dumps(request_id)
            + b',"object":"chat.completion.chunk","created":'
            + str(int(created)).encode()
            + b',"model":'
            + dumps(model)
            + b',"choices":['
        )
        self._head = head
        self._choice_heads = [head + b'{"index":%d,"delta":' % i for i in range(n)]
        self._usage_null = b',"usage":null' if include_usage else b""
        self._content_heads = [h + b'{"content":' for h in self._choice_heads]
        self._content_tail = b'},"finish_reason":null,"logprobs":null}]' + self._usage_null + b"}\n\n"
        self._include_usage = include_usage

    def role(self, index: int) -> Frame:
        return (
            self._choice_heads[index] + b'{"role":"assistant","content":""},"finish_reason":null,'
            b'"logprobs":null}]' + self._usage_null + b"}\n\n"
        )

    def content(self, index: int, text: str) -> Frame:
        return self._content_heads[index] + dumps(text) + self._content_tail

    def finish(self, index: int, reason: str) -> Frame:
        """The empty-delta chunk that carries finish_reason."""
        return (
            self._choice_heads[index]
            + b'{},"finish_reason":'
            + dumps(reason)
            + b',"logprobs":null}]'
            + self._usage_null
            + b"}\n\n"
        )

    def usage(self, prompt: int, completion: int) -> Frame:
        """The extra last chunk of a stream that asked for usage: empty `choices`, the token counts."""
        return (
            self._head
            + b'],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}\n\n'
            % (prompt, completion, prompt + completion)
        )
