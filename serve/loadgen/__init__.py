"""`csreply bench`: an async load generator for OpenAI-compatible servers (ours, vLLM, trtllm-serve, Triton's
OpenAI frontend) and for our `/v1/reply` product path."""
