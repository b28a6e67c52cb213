"""``biaswh generate``: answer vignettes through an OpenAI-compatible endpoint (ingest/silent_bias/).

Its options (the argument tree imports only the settings' defaults, so ``--help`` stays light)
and the command itself, which imports the client when it runs.
"""

from __future__ import annotations

from pathlib import Path

from biaswh.arguments import MAX_TOKENS, add_endpoint_options, endpoint_pool, endpoint_settings, number
from biaswh.command_registry import register_command
from biaswh.output_options import register_output_options
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import POSITIVE_INTEGER, SEED, TEMPERATURE, TOP_P


def _arguments(generate) -> None:
    """Add the options of ``biaswh generate``."""
    from biaswh.ingest.silent_bias.generation_settings import DEFAULT_PROMPT_TEMPLATE
    from biaswh.ingest.silent_bias.generation_settings import GenerationSettings as Defaults

    generate.add_argument("vignettes", help="vignette file (JSON with a 'cases' array, or JSONL)")
    generate.add_argument("--model", required=True, help="model name the endpoint serves; also the record's model_name")
    generate.add_argument(
        "--base-url", required=True, help="e.g. https://api.openai.com/v1 or http://localhost:1234/v1"
    )
    generate.add_argument("--out", required=True, help="generations JSONL; also the cache a rerun resumes from")
    generate.add_argument(
        "--api-key-env",
        default=Defaults.api_key_env,
        help="environment variable holding the API key (default: OPENAI_API_KEY; may be unset for local servers)",
    )
    generate.add_argument(
        "--template-file", help=f"prompt template with {{prompt}} (default: {DEFAULT_PROMPT_TEMPLATE!r})"
    )
    generate.add_argument(
        "--temperature",
        type=number(TEMPERATURE),
        default=Defaults.temperature,
        help=f"sampling temperature sent to the endpoint (default: {Defaults.temperature})",
    )
    generate.add_argument(
        "--top-p",
        type=number(TOP_P),
        default=Defaults.top_p,
        help=f"nucleus sampling: keep the smallest token set of this probability (default: {Defaults.top_p})",
    )
    generate.add_argument(
        "--max-tokens",
        type=number(MAX_TOKENS),
        default=Defaults.max_tokens,
        help=f"longest answer, in tokens (default: {Defaults.max_tokens})",
    )
    generate.add_argument("--seed", type=number(SEED), help="sampling seed sent to the endpoint (where supported)")
    add_endpoint_options(generate, Defaults)
    generate.add_argument("--limit", type=number(POSITIVE_INTEGER), help="only the first N vignettes")


register_output_options("generate", "out")


@register_command(
    "generate",
    summary="ask an OpenAI-compatible endpoint to answer vignettes (resumable; writes JSONL)",
    arguments=_arguments,
    order=80,
    explained={
        "generate": (
            "Answer vignettes with a model behind an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,"
            " LM Studio). Resumable: a rerun sends only what is missing or failed.",
            "biaswh generate vignettes.json --model qwq --base-url http://localhost:1234/v1"
            " --out generations/qwq.jsonl",
            "Writes the JSONL of --out (prompt, settings, answer or failure per vignette); the"
            " silent_bias_generations ingest source loads it.",
        )
    },
)
def generate_answers(args) -> None:
    """``biaswh generate``: answer vignettes through an OpenAI-compatible endpoint (ingest/silent_bias/)."""
    from biaswh.ingest.silent_bias.generate_answers import DEFAULT_PROMPT_TEMPLATE, GenerationSettings, generate

    template = DEFAULT_PROMPT_TEMPLATE
    if args.template_file:
        try:
            template = Path(args.template_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{args.template_file}: cannot read the prompt template ({exc.strerror})") from None
    settings = GenerationSettings(prompt_template=template, **endpoint_settings(args))
    with endpoint_pool(args):
        result = generate(args.vignettes, args.out, settings, limit=args.limit)
    print(result.message)
