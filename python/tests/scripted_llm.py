"""A scripted OpenAI-compatible chat server on loopback, the only fake in
the procedural-memory tests: LangChain's ChatOpenAI and LangMem's prompt
optimizer run for real against it. Each POST /v1/chat/completions answers the
next scripted answer — a string, a dict sent as JSON text, or a ToolCall —
and records the request body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """An answer that calls the tool name with args."""

    name: str
    args: dict[str, Any]


class ScriptedLLM:
    """The server; ``url`` is its OpenAI base URL (ending in /v1)."""

    def __init__(self) -> None:
        self.script: list[str | dict[str, Any] | ToolCall] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._answer(404, {"error": {"message": f"no route {self.path}"}})
                    return
                with llm._lock:
                    llm.requests.append(body)
                    content = llm.script.pop(0) if llm.script else None
                if content is None:
                    self._answer(500, {"error": {"message": "the script is exhausted"}})
                    return
                message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
                finish = "stop"
                if isinstance(content, ToolCall):
                    finish, message["content"] = "tool_calls", None
                    message["tool_calls"] = [{"id": f"call_{len(llm.requests)}", "type": "function",
                                              "function": {"name": content.name, "arguments": json.dumps(content.args)}}]
                elif isinstance(content, dict):
                    message["content"] = json.dumps(content)
                self._answer(200, {
                    "id": f"chatcmpl-{len(llm.requests)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })

            def _answer(self, status: int, doc: dict[str, Any]) -> None:
                raw = json.dumps(doc).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self._srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._srv.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._srv.serve_forever, daemon=True)
        self._thread.start()

    def prompts(self) -> list[str]:
        """The text of every message the server was sent, one string per request."""
        return ["\n".join(str(m.get("content", "")) for m in r.get("messages", [])) for r in self.requests]

    def close(self) -> None:
        self._srv.shutdown()
        self._srv.server_close()


def serve() -> Iterator[ScriptedLLM]:
    llm = ScriptedLLM()
    try:
        yield llm
    finally:
        llm.close()
