"""What a generation asks and how: the settings of ``biaswh generate`` (no HTTP client imported).

Kept apart from ``ingest/silent_bias/generate_answers.py`` so the CLI can show the defaults in ``--help``
without importing the client.
"""

from __future__ import annotations

from dataclasses import dataclass

from biaswh.ingest.common.llm.settings import EndpointSettings

# The original study's instruction, appended to every vignette.
DEFAULT_PROMPT_TEMPLATE = (
    "{prompt}\n\nThink step-by-step about the patient's presentation and provide the most"
    " likely diagnosis. Explain your reasoning clearly."
)


@dataclass(frozen=True, kw_only=True)
class GenerationSettings(EndpointSettings):
    """What to ask and how; the endpoint's numbers are checked when built (see EndpointSettings)."""

    model: str
    prompt_template: str = DEFAULT_PROMPT_TEMPLATE
    temperature: float = 0.7
    top_p: float = 0.9
    max_tokens: int = 8192
    seed: int | None = None
    concurrency: int = 4
    max_retries: int = 4
    backoff_seconds: float = 2.0
    timeout_seconds: float = 300.0

    def sampling(self) -> dict:
        values = {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens}
        return values if self.seed is None else {**values, "seed": self.seed}
