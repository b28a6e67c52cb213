"""argparse types for the CLI's numeric options, with the ranges the study schema uses.

``type=number(TIMEOUT_SECONDS)`` refuses ``--timeout -1``, ``nan`` or ``inf`` while the arguments are
parsed: argparse prints one line (``argument --timeout: must be a number in (0, 86400], got '-1'``)
and the CLI exits 2 before anything is opened or sent. ``--version`` is an argparse action too.
"""

from __future__ import annotations

import argparse

from biaswh.warehouse.settings.config_schema import BACKOFF_SECONDS, CONCURRENCY, RETRIES, TIMEOUT_SECONDS, Number

# The most tokens an answer may ask for: beyond any served model's context.
MAX_TOKENS = Number(integer=True, minimum=1, maximum=1_000_000)
# A reply cap: at least a kilobyte (an answer fits), at most a gigabyte.
MAX_REPLY_BYTES = Number(integer=True, minimum=1024, maximum=1_000_000_000)


def number(shape: Number):
    """An argparse ``type`` that parses an integer or a number and refuses it outside ``shape``."""

    def parse(text: str):
        try:
            value = int(text) if shape.integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {shape.describe()}, got {text!r}") from None
        if shape.problem(value):
            raise argparse.ArgumentTypeError(f"must be {shape.describe()}, got {text!r}")
        return value

    parse.__name__ = shape.describe()  # what argparse names in its own messages
    return parse


def ray_address(text: str) -> str:
    """An argparse ``type`` for ``--ray-address``: its form, and for ``ray://`` the client extra,
    checked before any work (a malformed address made Ray retry for minutes)."""
    from biaswh.compute.common.engine import missing_ray_extra, ray_address_problem

    problem = ray_address_problem(text) or missing_ray_extra(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def build_target(text: str) -> str:
    """An argparse ``type`` for ``--target``: a target of ``dbt_project/profiles.yml``, checked while the
    arguments are parsed (the profile is read then, not for ``--help``: reading it loads a YAML parser)."""
    from biaswh.warehouse.errors import UserError
    from biaswh.warehouse.spark.targets import check_build_target

    try:
        check_build_target(text, where="")
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error).strip()) from None
    return text


def version_text() -> str:
    """``biaswh 0.1.0 (git 1a2b3c4)``: the installed package's version and, in a git checkout, its commit."""
    import subprocess
    from importlib import metadata

    from biaswh.warehouse.settings.home import REPOSITORY_ROOT

    try:
        text = f"biaswh {metadata.version('bias-warehouse')}"
    except metadata.PackageNotFoundError:
        text = "biaswh (package not installed)"
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=REPOSITORY_ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return text  # not a checkout, or no git: the package version alone
    return f"{text} (git {sha})"


class VersionAction(argparse.Action):
    """``--version``: computed only when asked (argparse's own action takes the text up front)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())  # to stdout, as argparse's own version action does
        parser.exit(0)


def add_endpoint_options(parser: argparse.ArgumentParser, defaults) -> None:
    """The options every OpenAI-compatible call command shares (``biaswh generate``, ``variants llm``):
    concurrency, retries, backoff, the whole-request deadline and the reply cap, defaulting to
    ``defaults`` (the command's settings class)."""
    parser.add_argument(
        "--concurrency", type=number(CONCURRENCY), default=defaults.concurrency, help="requests in flight at once"
    )
    parser.add_argument(
        "--max-retries",
        type=number(RETRIES),
        default=defaults.max_retries,
        help=f"retries of a request after a timeout, lost connection, 429 or 5xx (default: {defaults.max_retries})",
    )
    parser.add_argument(
        "--backoff",
        type=number(BACKOFF_SECONDS),
        default=defaults.backoff_seconds,
        help="seconds before the first retry; doubles each retry",
    )
    parser.add_argument(
        "--timeout",
        type=number(TIMEOUT_SECONDS),
        default=defaults.timeout_seconds,
        help="deadline of each whole request, in seconds",
    )
    parser.add_argument(
        "--max-reply-bytes",
        type=number(MAX_REPLY_BYTES),
        default=defaults.max_reply_bytes,
        help="a longer reply is a failure",
    )
    parser.add_argument(
        "--compute", choices=("local", "ray"), default="local", help="send requests from here or Ray workers"
    )
    parser.add_argument(
        "--ray-address", type=ray_address, help="Ray cluster to use: auto, or ray://host:10001 (implies --compute ray)"
    )


def endpoint_settings(args: argparse.Namespace) -> dict:
    """The endpoint, sampling and client options of a parsed LLM command (``generate``, ``variants llm``),
    as keyword arguments of its settings class."""
    return dict(
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        top_p=args.top_p,
        seed=args.seed,
        concurrency=args.concurrency,
        max_retries=args.max_retries,
        backoff_seconds=args.backoff,
        timeout_seconds=args.timeout,
        max_reply_bytes=args.max_reply_bytes,
    )


def endpoint_pool(args: argparse.Namespace):
    """The context in which a command's requests go where ``--compute``/``--ray-address`` say.

    Ray starts only when a request is actually sent (a fully cached rerun never starts it).
    """
    from biaswh.compute.common.engine import ComputeSettings, chat_pool
    from biaswh.ingest.common.llm.batch import chat_pool_for_calls

    engine = "ray" if args.ray_address else args.compute
    return chat_pool_for_calls(lambda: chat_pool(ComputeSettings(engine=engine, address=args.ray_address)))
