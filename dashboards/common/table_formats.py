"""A page's table for a paper: LaTeX (booktabs) or Markdown, with significance marks and the verdict policy.

The cells are the page's own display text (the site's one format: p to 2 significant digits,
intervals in their estimate's unit); a row whose stored values say it is significant under the
study's verdict policy (``is_significant``, ``significant_adjusted``) gets a mark on its adjusted p
(else on its first cell), and the caption states the policy: alpha, the adjustment and the family.
As ranx's LaTeX tables, with what they lack: the adjusted p and the intervals themselves.
"""

from __future__ import annotations

import re

import pandas as pd

from biaswh.dashboards.common.downloads import CapturedTable
from biaswh.dashboards.common.queries import column_label

MARK = "*"
SIGNIFICANCE_COLUMNS = ("is_significant", "significant_adjusted")
# the column a mark goes on: the adjusted p first (the verdict's p), then any p
ADJUSTED_P = ("p_adjusted", "p_value_adjusted", "p_holm")
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_UNICODE = {"−": "-", "–": "--", "—": "---", "≥": r"$\geq$", "≤": r"$\leq$", "→": r"$\rightarrow$", "×": r"$\times$"}
_UNICODE |= {"χ²": r"$\chi^2$", "²": r"$^2$", "α": r"$\alpha$", "Δ": r"$\Delta$", "∞": r"$\infty$", "…": r"\ldots{}"}
_UNICODE |= {"·": r"$\cdot$", "’": "'", "‘": "`", "±": r"$\pm$"}


def latex_escape(value: str) -> str:
    """``value`` safe in LaTeX text: the ten special characters escaped, a few symbols as math."""
    escaped = "".join(_LATEX_SPECIALS.get(character, character) for character in str(value))
    for symbol, replacement in _UNICODE.items():
        escaped = escaped.replace(symbol, replacement)
    # pdflatex's utf8 input knows Latin-1; anything else would stop the document, so it reads "?"
    return "".join(character if ord(character) < 256 else "?" for character in escaped)


def significant_rows(table: CapturedTable) -> list[bool]:
    """Per row, whether its stored values say significant under the verdict policy."""
    column = next((c for c in SIGNIFICANCE_COLUMNS if c in table.data.columns), None)
    if column is None or len(table.data) != len(table.display):
        return [False] * len(table.display)
    return [bool(value) if not pd.isna(value) else False for value in table.data[column]]


def _mark_column(table: CapturedTable) -> int:
    names = [column_label(c)[1] or c for c in table.columns]
    for wanted in ADJUSTED_P:
        if wanted in names:
            return names.index(wanted)
    adjusted = [i for i, c in enumerate(table.columns) if "adjusted" in c.lower() or c.lower().endswith(" p")]
    return adjusted[0] if adjusted else 0


def policy_caption(table: CapturedTable, policy: dict) -> str:
    """E.g. "* significant: adjusted p < 0.05 (Holm within each retriever over k = 1, 10; 3 tests)"."""
    if not any(significant_rows(table)) and not any(c in table.data.columns for c in SIGNIFICANCE_COLUMNS):
        return ""
    data = table.data
    adjustment = (
        data["adjustment"].dropna().iloc[0] if "adjustment" in data and data["adjustment"].notna().any() else None
    )
    families = sorted({str(f) for f in data["family"].dropna()}) if "family" in data else []
    sizes = sorted({int(s) for s in data["family_size"].dropna()}) if "family_size" in data else []
    if len(families) > 2:
        within = f" within each of {len(families)} families (e.g. {families[0]})"
    else:
        within = f" within {'; '.join(families)}" if families else " within each family"
    size = f"; {', '.join(map(str, sizes))} tests per family" if sizes else ""
    return (
        f"{MARK} significant: {adjustment or policy['adjustment']}-adjusted p < {policy['alpha']:g}"
        f"{within}{size} (the study's verdict policy)."
    )


def _marked(table: CapturedTable, cell: str, row: int, column: int, significant: list[bool], mark: str) -> str:
    return cell + mark if significant[row] and column == _mark_column(table) else cell


def latex_table(table: CapturedTable, *, caption: str, policy: dict, label: str) -> str:
    """A booktabs ``table`` environment of the page's table, marks and policy in its caption."""
    significant = significant_rows(table)
    header = " & ".join(latex_escape(column_label(c)[0]) for c in table.columns)
    body = [
        " & ".join(_marked(table, latex_escape(cell), r, c, significant, r"$^{*}$") for c, cell in enumerate(row))
        + r" \\"
        for r, row in enumerate(table.display)
    ]
    full_caption = " ".join(part for part in (caption, policy_caption(table, policy)) if part)
    return "\n".join(
        [
            r"\begin{table}[htbp]",
            r"\centering",
            r"\small",
            r"\caption{" + latex_escape(full_caption) + "}",
            r"\label{" + re.sub(r"[^A-Za-z0-9:-]+", "-", label) + "}",
            r"\resizebox{\textwidth}{!}{%",
            r"\begin{tabular}{" + "l" * len(table.columns) + "}",
            r"\toprule",
            header + r" \\",
            r"\midrule",
            *body,
            r"\bottomrule",
            r"\end{tabular}}",
            r"\end{table}",
            "",
        ]
    )


def markdown_table(table: CapturedTable, *, caption: str, policy: dict) -> str:
    """A GitHub-flavoured Markdown table with its caption (and the policy) as a paragraph above."""
    significant = significant_rows(table)

    def cell(value: str) -> str:
        return str(value).replace("|", r"\|").replace("\n", " ")

    lines = [
        "| " + " | ".join(cell(column_label(c)[0]) for c in table.columns) + " |",
        "|" + "---|" * len(table.columns),
        *(
            "| " + " | ".join(_marked(table, cell(v), r, c, significant, MARK) for c, v in enumerate(row)) + " |"
            for r, row in enumerate(table.display)
        ),
    ]
    full_caption = " ".join(part for part in (caption, policy_caption(table, policy)) if part)
    return f"**{cell(full_caption)}**\n\n" + "\n".join(lines) + "\n"
