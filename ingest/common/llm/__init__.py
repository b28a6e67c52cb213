"""The one client for OpenAI-compatible endpoints (chat and embeddings), used by every caller.

``settings`` holds what every caller shares (endpoint, key variable, pool size, retries,
whole-request deadline, reply size cap; checked when built) and imports no HTTP library, so
``--help`` stays fast. ``client`` sends one request under a whole-request deadline and a size
cap, distrusts the reply (JSON, shape, non-empty content) and retries with backoff. ``batch``
runs many chat requests in a bounded pool over a resumable JSONL cache.
"""
