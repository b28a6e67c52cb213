"""Deliver alert changes (opened, resolved) to the channels of ``[[monitoring.deliver]]``.

- a webhook: ``POST`` of a JSON payload to the URL in the environment variable ``webhook_env``
  (never stored or printed: a Slack webhook's URL is its secret). ``format = "json"``: the
  generic payload (:func:`alert_payload`); ``"slack"``: ``{"text": ...}``, which Slack's incoming
  webhooks (and Mattermost's, Teams' connectors) accept. A timeout, lost connection, 429 or 5xx
  is retried with doubling backoff; a redirect is not followed; any 2xx is delivered.
- a file: one JSON line (the generic payload) appended per delivery.

Every attempt is a row of ``analysis.evaluation_alert_deliveries`` (delivered or failed, with
the reason); a failure never raises, so a broken webhook never fails the tick.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path

import httpx2
import polars as pl

from biaswh.ingest.common.llm.settings import redact
from biaswh.warehouse.settings.home import warehouse_paths

DELIVERY_SCHEMA = {
    "run_id": pl.String,
    "alert_id": pl.String,
    "event": pl.String,
    "channel": pl.String,
    "target": pl.String,
    "payload_format": pl.String,
    "attempt": pl.Int64,
    "status": pl.String,
    "http_status": pl.Int64,
    "reason": pl.String,
    "created_at": pl.Datetime("us"),
}
_REASON_CHARACTERS = 200


def alert_payload(event: dict) -> dict:
    """The generic JSON payload of one alert change."""
    verb = "opened" if event["event"] == "opened" else "resolved"
    text = (
        f"[{event['study_name']}] alert {event['alert_id']} {verb}: {event['retriever']} {event['metric']}"
        f" = {event['value']:.4g} (baseline {event['baseline_value']:.4g}; {event['direction']} {event['threshold']:g})"
        f" in the week of {event['partition']}"
        + (f", p = {event['p_value']:.3g}" if event.get("p_value") is not None else "")
    )
    keys = ("alert_id", "event", "study_name", "label", "query_set", "retriever", "metric", "severity",
            "direction", "threshold", "value", "baseline_value", "p_value", "p_adjusted", "description",
            "evaluation_run_id")  # fmt: skip
    return {**{key: event.get(key) for key in keys}, "partition": str(event["partition"]), "text": text}


def _post(url: str, body: dict, timeout: float) -> tuple[int | None, str, bool]:
    """(HTTP status, failure reason or "", retryable) of one POST."""
    try:
        with httpx2.Client(timeout=timeout, follow_redirects=False) as client:
            status = client.post(url, json=body).status_code
    except httpx2.TimeoutException:
        return None, f"no reply within {timeout:g} s", True
    except httpx2.HTTPError as exc:
        return None, redact(f"{type(exc).__name__}: {exc}", url), True
    if 200 <= status < 300:
        return status, "", False
    if 300 <= status < 400:
        return status, f"HTTP {status}: the webhook redirects; redirects are not followed", False
    return status, f"HTTP {status}", status == 429 or status >= 500


def _webhook(channel: dict, event: dict) -> list[dict]:
    """The attempts of one webhook delivery."""
    variable = channel["webhook_env"]
    payload_format = channel.get("format", "json")
    base = {"channel": "webhook", "target": f"${variable}", "payload_format": payload_format}
    url = (os.environ.get(variable) or "").strip()
    if not url.startswith(("http://", "https://")):
        reason = f"${variable} is not set" if not url else f"${variable} is not an http:// or https:// URL"
        return [{**base, "attempt": 1, "status": "failed", "http_status": None, "reason": reason}]
    payload = alert_payload(event)
    body = {"text": payload["text"]} if payload_format == "slack" else payload
    attempts = []
    retries, backoff = int(channel.get("retries", 3)), float(channel.get("backoff", 1.0))
    for attempt in range(retries + 1):
        status, reason, retryable = _post(url, body, float(channel.get("timeout", 10.0)))
        outcome = "failed" if reason else "delivered"
        attempts.append({**base, "attempt": attempt + 1, "status": outcome, "http_status": status,
                         "reason": redact(reason, url)[:_REASON_CHARACTERS] or None})  # fmt: skip
        if not reason or not retryable or attempt == retries:
            break
        time.sleep(backoff * 2**attempt)
    return attempts


def delivery_file(channel: dict) -> Path:
    """Where a file channel writes: a relative path is in the warehouse folder."""
    path = Path(channel["file"]).expanduser()
    return path if path.is_absolute() else warehouse_paths().home / path


def _file(channel: dict, event: dict) -> list[dict]:
    path = delivery_file(channel)
    base = {"channel": "file", "target": str(path), "payload_format": "json", "attempt": 1, "http_status": None}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(alert_payload(event), default=str, sort_keys=True) + "\n")
    except OSError as exc:
        return [{**base, "status": "failed", "reason": f"{type(exc).__name__}: {exc.strerror or exc}"}]
    return [{**base, "status": "delivered", "reason": None}]


def deliver_events(study, events: pl.DataFrame) -> pl.DataFrame:
    """Deliver each event to each channel of the study's ``[[monitoring.deliver]]``; one row per attempt."""
    channels = (study.settings.get("monitoring") or {}).get("deliver") or []
    rows = []
    for event in events.iter_rows(named=True):
        for channel in channels:
            attempts = _webhook(channel, event) if "webhook_env" in channel else _file(channel, event)
            now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            for attempt in attempts:
                keys = {"run_id": event["run_id"], "alert_id": event["alert_id"], "event": event["event"]}
                rows.append({**keys, **attempt, "created_at": now})
            last = attempts[-1]
            where = last["target"]
            print(f"  alert {event['alert_id']} {event['event']}: {last['status']} to {where}"
                  + (f" ({last['reason']})" if last["reason"] else ""), flush=True)  # fmt: skip
    return pl.DataFrame(rows, schema=DELIVERY_SCHEMA)
