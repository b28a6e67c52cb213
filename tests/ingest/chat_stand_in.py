"""A small OpenAI-compatible chat server on 127.0.0.1 for tests (a stand-in for the API, never the network)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatStandIn:
    """Serves ``POST /v1/chat/completions``; scripted failures per prompt; counts requests.

    ``failures[marker]`` is a list of actions for the first requests whose prompt contains
    ``marker``: an HTTP status (e.g. 500, 429), ``"slow"`` (sleep ``slow_seconds`` first) or
    one of the misbehaviours below. ``misbehave`` applies one misbehaviour to every request:
    ``non_json``, ``html`` (a 200 with a proxy's error page), ``wrong_shape`` (JSON, not a
    completion), ``empty_choices``, ``null_content``, ``drip`` (a valid reply, one byte every
    ``drip_seconds``) or ``huge`` (content of ``huge_bytes``).
    ``responder(prompt, body)``, when given, writes the reply's content (a "model" with known behaviour).
    Replies name ``served_model`` as their model when set (a server that answers with another model).
    """

    def __init__(
        self,
        *,
        failures: dict[str, list] | None = None,
        slow_seconds: float = 1.0,
        status_for_all: int | None = None,
        echo_key_in_error: bool = False,
        delay_seconds: float = 0.0,
        reply=None,
        responder=None,
        misbehave: str | None = None,
        drip_seconds: float = 0.5,
        huge_bytes: int = 2_000_000,
        served_model: str | None = None,
        redirect_to: str | None = None,
    ):
        self.redirect_to = redirect_to
        self.responder = responder
        self.misbehave = misbehave
        self.drip_seconds = drip_seconds
        self.huge_bytes = huge_bytes
        self.served_model = served_model
        self.failures = {k: list(v) for k, v in (failures or {}).items()}
        self.slow_seconds = slow_seconds
        self.status_for_all = status_for_all
        self.echo_key_in_error = echo_key_in_error
        self.delay_seconds = delay_seconds
        self.reply = reply  # prompt -> assistant content (default: a diagnosis-style answer)
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def prompt_counts(self) -> Counter:
        return Counter(r["prompt"] for r in self.requests)

    def __enter__(self) -> "ChatStandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def _action(self, prompt: str):
        with self.lock:
            for marker, actions in self.failures.items():
                if marker in prompt and actions:
                    return actions.pop(0)
        return None

    def _handler(self):
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            in_flight = False  # whether this request still counts in the stand-in's in_flight

            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _reply(
                self, status: int, body, *, content_type: str = "application/json", drip: bool = False, sized=True
            ):
                self._land()
                payload = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                if sized:  # else HTTP/1.0: the body ends when the connection closes
                    self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if not drip:
                    self.wfile.write(payload)
                    return
                try:  # one byte at a time: every read succeeds, the whole reply never arrives in time
                    for i in range(len(payload)):
                        self.wfile.write(payload[i : i + 1])
                        self.wfile.flush()
                        time.sleep(stand_in.drip_seconds)
                except OSError:  # the client gave up and closed the connection
                    pass

            def _misbehave(self, action: str, completion: dict) -> bool:
                """Send the misbehaving reply ``action`` names; False when it names none."""
                if action == "non_json":
                    self._reply(200, b"upstream said: all good", content_type="text/plain")
                elif action == "html":
                    page = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
                    self._reply(200, page, content_type="text/html")
                elif action == "wrong_shape":
                    self._reply(200, {"result": {"text": "an answer, but not where a completion has it"}})
                elif action == "empty_choices":
                    self._reply(200, {**completion, "choices": []})
                elif action == "null_content":
                    completion["choices"][0]["message"]["content"] = None
                    self._reply(200, completion)
                elif action == "blank_content":
                    completion["choices"][0]["message"]["content"] = " \n\t"
                    self._reply(200, completion)
                elif action == "nested":
                    self._reply(200, b'{"choices": ' + b"[" * 5_000 + b"]" * 5_000 + b"}")
                elif action == "drip":
                    self._reply(200, completion, drip=True)
                elif action == "huge":
                    completion["choices"][0]["message"]["content"] = (
                        "What" + " y'all" * (stand_in.huge_bytes // 6) + "?"
                    )
                    self._reply(200, completion)
                elif action == "huge_unsized":
                    completion["choices"][0]["message"]["content"] = "What" + " y'all" * (stand_in.huge_bytes // 6)
                    self._reply(200, completion, sized=False)
                else:
                    return False
                return True

            def do_POST(self) -> None:
                with stand_in.lock:
                    stand_in.in_flight += 1
                    stand_in.max_in_flight = max(stand_in.max_in_flight, stand_in.in_flight)
                self.in_flight = True
                try:
                    time.sleep(stand_in.delay_seconds)
                    self._answer()
                finally:
                    self._land()

            def _land(self) -> None:
                """Stop counting this request as in flight, once: when its reply starts. The client
                may send its next request as soon as it has read this reply, before this thread
                returns (on a busy machine the stand-in then counted one more than the limit)."""
                if self.in_flight:
                    self.in_flight = False
                    with stand_in.lock:
                        stand_in.in_flight -= 1

            def _answer(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"]
                with stand_in.lock:
                    stand_in.requests.append(
                        {
                            "prompt": prompt,
                            "body": body,
                            "authorization": self.headers.get("Authorization"),
                            "path": self.path,
                        }
                    )
                if stand_in.redirect_to:
                    self._land()
                    self.send_response(307)
                    self.send_header("Location", f"{stand_in.redirect_to.rstrip('/')}/chat/completions")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                if stand_in.status_for_all:
                    key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                    detail = f"Incorrect API key provided: {key}" if stand_in.echo_key_in_error else "refused"
                    return self._reply(stand_in.status_for_all, {"error": {"message": detail, "type": "x"}})
                action = stand_in._action(prompt) or stand_in.misbehave
                if action == "slow":
                    time.sleep(stand_in.slow_seconds)
                elif isinstance(action, int):
                    return self._reply(action, {"error": {"message": f"scripted {action}", "type": "x"}})
                first_line = prompt.splitlines()[0]
                content = f"**Most Likely Diagnosis:** answer to {first_line[:40]}"
                if stand_in.responder is not None:  # a "model" that sees the whole request
                    content = stand_in.responder(prompt, body)
                elif stand_in.reply is not None:  # a "model" that sees only the prompt
                    content = stand_in.reply(prompt)
                completion = {
                    "id": "stand-in",
                    "object": "chat.completion",
                    "created": 0,
                    "model": stand_in.served_model or body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {
                                "role": "assistant",
                                "content": content,
                                "reasoning_content": f"thinking about {first_line[:40]}",
                            },
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                if not (isinstance(action, str) and self._misbehave(action, completion)):
                    self._reply(200, completion)

        return Handler
