"""What a dialect conversion asks and how: the settings of ``biaswh variants llm`` (no HTTP client imported).

Kept apart from ``ingest/dialect/convert_with_llm.py`` so the CLI can show the defaults in ``--help``
without importing the client (as ``ingest/silent_bias/generation_settings.py`` does for ``biaswh generate``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from biaswh.ingest.common.llm.settings import EndpointSettings

# Our wording of the original study's instructions (its template can be passed as a file).
DEFAULT_CONVERSION_TEMPLATE = """You are a linguist who studies African American English (AAE).

Rewrite the Standard American English (SAE) question below as a natural AAE question of
everyday speech, with exactly the same meaning.

- Keep names, numbers, dates and every fact as they are.
- Keep tense and aspect; keep a question's time cues.
- Use AAE grammar only where it is natural: copula absence, habitual be, negative concord, AAE verb agreement.
- No phonetic spellings, no stereotypes or caricature; prefer small edits to rewrites.
- One question, ending with a single question mark.

Reply with the AAE question only: one line, no quotes, no explanation.

SAE question: {sae_query}
"""


@dataclass(frozen=True, kw_only=True)
class ConversionSettings(EndpointSettings):
    """Model, template and sampling (recorded per line), and the endpoint's settings (checked when built)."""

    model: str
    prompt_template: str = DEFAULT_CONVERSION_TEMPLATE
    max_tokens: int = 150
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    concurrency: int = 4
    max_retries: int = 3
    backoff_seconds: float = 1.0
    timeout_seconds: float = 60.0

    def sampling(self) -> dict:
        """Exactly the sampling parameters sent (unset ones are the endpoint's defaults)."""
        values = {"max_tokens": self.max_tokens, "temperature": self.temperature, "top_p": self.top_p}
        values["seed"] = self.seed
        return {k: v for k, v in values.items() if v is not None}

    def template_sha256(self) -> str:
        return hashlib.sha256(self.prompt_template.encode("utf-8")).hexdigest()
