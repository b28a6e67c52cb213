"""The command-line reference: every ``biaswh`` command's own ``--help``, as the parser prints it."""

from __future__ import annotations

import os

WIDTH = "100"  # argparse wraps to $COLUMNS; the page is generated at one width


def cli_reference() -> str:
    """One section per command, holding what ``biaswh COMMAND --help`` prints."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        from biaswh.cli import _parser
        from biaswh.cli_help import _subcommands

        parser = _parser()
        parts = [f"### `biaswh`\n\n```text\n{parser.format_help().rstrip()}\n```\n"]
        for path, command in _subcommands(parser):
            parts.append(f"### `biaswh {path}`\n\n```text\n{command.format_help().rstrip()}\n```\n")
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
    return "\n".join(parts)
