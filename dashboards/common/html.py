"""Small, escaping HTML building blocks for the static site.

Every text that reaches a page goes through :func:`text` (``html.escape``); chart specs
are embedded as JSON inside ``<script type="application/json">`` with ``<`` escaped, so
no data value can close a tag or run script.
"""

from __future__ import annotations

import html
import json
import re
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import count
from typing import Iterator

import altair as alt

from biaswh.dashboards.common.downloads import download_payload
from biaswh.dashboards.common.format import cell as format_cell
from biaswh.dashboards.common.format import is_missing, p_value, percent
from biaswh.dashboards.common.queries import column_label

_chart_ids = count(1)


def restart_chart_ids() -> None:
    """Number the next page's charts from 1 again: a page's HTML then depends on what it shows,
    not on how many charts the process drew before it (ids need only be unique within a page)."""
    global _chart_ids
    _chart_ids = count(1)


# vega-embed: SVG rendering; the menu offers "Save as SVG" / "Save as PNG" only
EMBED_OPTIONS = {
    "renderer": "svg",
    "actions": {"export": True, "source": False, "compiled": False, "editor": False},
}
# While set (:func:`capturing_charts`), every chart a page embeds is also appended here, so the
# Python API hands a page's charts out as Altair objects without a second copy of each page.
_captured: ContextVar[list | None] = ContextVar("captured_charts", default=None)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #1b1b1b; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.85rem; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; word-break: normal; overflow-wrap: normal; hyphens: none; }
td { overflow-wrap: normal; hyphens: none; } td.short { white-space: nowrap; }
button.csv { display: block; font-size: 0.75rem; margin: 0.2rem 0 0.8rem; cursor: pointer; }
code, .mono { font-family: ui-monospace, monospace; font-size: 0.8rem; overflow-wrap: anywhere; }
td > .mono { overflow-wrap: break-word; } /* an id breaks at spaces only: never one letter per line */
.status-succeeded { color: #1a7f37; } .status-failed { color: #cf222e; } .status-running { color: #9a6700; }
.status-interrupted { color: #bc4c00; font-weight: 600; }
.note { color: #555; font-size: 0.9rem; } nav a { margin-right: 1rem; }
.run-selector ul { display: inline; padding-left: 0.5rem; } .run-selector div { margin: 0.2rem 0; }
.run-selector li { display: inline; margin-right: 1rem; }
.run-selector { background: #f4f4f4; padding: 0.4rem 0.6rem; margin: 0.5rem 0; }
details summary { cursor: pointer; }
.badge { display: inline-block; font-size: 0.75em; font-weight: 600; padding: 0.1rem 0.45rem; border-radius: 4px;
  vertical-align: middle; background: #fff1c2; color: #6b4a00; border: 1px solid #d4a72c; }
.badge-synthetic { background: #e8f0fe; color: #1a3f80; border-color: #7a9fd6; }
.study-list li { margin: 0.5rem 0; line-height: 1.45; } .comparison { background: #f6f8fa; padding: 0.4rem 0.6rem; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 0.2rem 1rem 0.6rem; margin: 1rem 0; }
.glance ul { padding-left: 1.2rem; } .glance li { margin: 0.35rem 0; line-height: 1.4; }
.card h2, .card h3 { margin-top: 0.8rem; } .study-type > h2 { border-bottom: 2px solid #ddd; }
.verdict { font-size: 1.05rem; line-height: 1.45; }
.table-box { max-width: 100%; overflow-x: auto; }
th .sql { display: block; white-space: normal; font-weight: normal;
  font-family: ui-monospace, monospace; font-size: 0.7rem; color: #666; }
.weat-results td:last-child { min-width: 16rem; } .weat-results td:nth-child(2) { min-width: 10rem; }
.weat-results td:nth-child(1) { min-width: 7rem; overflow-wrap: break-word; } /* never a letter a line */
.features td:nth-child(2) { min-width: 12rem; } .features td:nth-child(7) { white-space: nowrap; }
details > .table-box { margin-top: 0.5rem; }
.table-box.tall { max-height: 32rem; overflow-y: auto; } .table-box.tall th { position: sticky; top: 0; }
"""


def text(value) -> str:
    """Escape any value for HTML text or attribute context."""
    return html.escape("" if value is None else str(value), quote=True)


def header(column: str) -> str:
    """A column header: a human label, and the SQL column it shows when the name is a SQL name.

    ``recall_a`` reads "recall A" over ``recall_a``; a name already written for people
    ("rule set") is kept as is. :data:`biaswh.dashboards.common.queries.HEADERS` holds the labels.
    """
    label, sql = column_label(column)
    if sql is None:
        return text(label)
    # a long SQL name may break after an underscore or a comma, never inside a word
    breakable = re.sub(r"(_|, )", r"\1<wbr>", text(sql))
    return f'{text(label)}<span class="sql">{breakable}</span>'


def _is_p_column(column: str) -> bool:
    """A column of p-values by its SQL name: ``p`` or ``p_*`` (p_value, p_holm, p_exact, ...)."""
    return column == "p" or column.startswith("p_")


def _is_rate_column(column: str) -> bool:
    """A column a page calls a recall or a rate (``recall_a``, ``hit_rate``, ``flip_rate``): a percentage."""
    return column.startswith("recall") or column.endswith("rate") or column.endswith("recall")


def _is_id_column(column: str) -> bool:
    """An identifier or position, never a count: no thousands separators (``pair_id``, ``squad_idx``)."""
    return column.endswith(("_id", "_idx", "_row", "position")) or column in ("id", "k", "pair", "case")


def table(
    columns: list[str],
    rows: list[list],
    *,
    data=None,
    raw_columns: frozenset[str] = frozenset(),
    css_class: str | None = None,
) -> str:
    """An HTML table in its own scrolling box; cells are escaped unless their column is in
    ``raw_columns`` (pre-built HTML); every other value gets the house format
    (:func:`biaswh.dashboards.common.format.cell`: numbers to 3 significant digits, counts with thousands
    separators, booleans as words, timestamps to the second, missing as "–"; a number in a p column,
    ``p`` or ``p_*``, as a p-value (:func:`biaswh.dashboards.common.format.p_value`); in a recall or rate
    column as a percentage). Headers name the SQL column they show (:func:`header`); the page's
    script adds a "Download CSV" button under the table.

    ``data``: the stored values behind the rows (a DataFrame or a list of dicts, one column per
    number: ``p_value``, ``p_adjusted``, ``ci_low``, ``ci_high``, ...), which the download holds
    exactly, with the run and study of the page (:mod:`biaswh.dashboards.common.downloads`); without it
    the download holds ``rows`` as given, so rows must then be stored values, not display text.
    """
    head = "".join(f"<th>{header(c)}</th>" for c in columns)

    def shown(column, value) -> str:
        """The cell's text as the reader sees it (pre-built HTML for a raw column)."""
        if column in raw_columns:
            return value
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and not is_missing(value)
        name = column_label(column)[1] or column
        if number and _is_p_column(name):
            return p_value(value)
        if number and isinstance(value, float) and _is_rate_column(name) and 0 <= value <= 1:
            return percent(value)
        if number and _is_id_column(name):
            return str(value)
        return format_cell(value)

    display = [[shown(c, v) for c, v in zip(columns, row)] for row in rows]
    body = "".join(
        "<tr>" + "".join(f"<td>{v if c in raw_columns else text(v)}</td>" for c, v in zip(columns, row)) + "</tr>"
        for row in display
    )
    class_attribute = f' class="{text(css_class)}"' if css_class else ""
    box = "table-box tall" if css_class == "tall" else "table-box"
    download = download_payload(columns, rows, data, display=display, raw_columns=raw_columns)
    return (
        f'<div class="{box}"><table{class_attribute}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
        f'<script type="application/json" class="table-data">{download}</script></div>'
    )


@contextmanager
def capturing_charts() -> Iterator[list]:
    """Collect, in page order, the Altair charts that :func:`chart` embeds while the block runs."""
    charts: list = []
    token = _captured.set(charts)
    try:
        yield charts
    finally:
        _captured.reset(token)


def chart(spec: alt.TopLevelMixin, *, name: str = "chart") -> str:
    """Embed an Altair chart; the page must load the vendored Vega bundle.

    Its menu saves the figure as SVG or PNG (vega-embed's export actions, offline), as
    ``<name>.svg`` / ``<name>.png``.
    """
    captured = _captured.get()
    if captured is not None:
        captured.append(spec)
    chart_id = f"chart-{next(_chart_ids)}"
    # Not checked against the Vega-Lite schema again: the same dict, without half of a site's
    # drawing time (the charts' tests check each chart function's output against the schema).
    document = spec.to_dict(validate=False)
    legend = document.setdefault("config", {}).setdefault("legend", {})
    # a legend title or label is never cut off ("…"): Vega-Lite's default limit is 180 px
    legend.setdefault("titleLimit", 0)
    legend.setdefault("labelLimit", 0)
    payload = json.dumps(document).replace("<", "\\u003c")
    options = json.dumps({**EMBED_OPTIONS, "downloadFileName": re.sub(r"[^A-Za-z0-9_-]+", "_", name) or "chart"})
    return (
        f'<div id="{chart_id}" class="chart"></div>'
        f'<script type="application/json" id="{chart_id}-spec">{payload}</script>'
        f'<script>vegaEmbed("#{chart_id}", JSON.parse(document.getElementById("{chart_id}-spec").textContent),'
        f" {options});</script>"
    )


# The "Download CSV" button under every table: the table's stored values, one column per number,
# with its run and study (dashboards/common/downloads.py wrote them as CSV text into the table's
# box), saved from a Blob: no server needed.
CSV_SCRIPT = """<script>
document.querySelectorAll('.table-box').forEach(function (box, i) {
  var table = box.querySelector('table'); if (!table) return;
  // a short value ("< 0.001", "[0.37, 0.38]") or one word (a system, an id) never wraps inside itself
  table.querySelectorAll('td').forEach(function (td) {
    var value = td.textContent.trim();
    if (td.children.length === 0 && (value.length <= 14 || (value.length <= 40 && !/\\s/.test(value)))) {
      td.classList.add('short');
    }
  });
  var button = document.createElement('button'); button.type = 'button'; button.className = 'csv';
  button.textContent = 'Download CSV';
  var stored = box.querySelector('script.table-data'); if (!stored) return;
  button.addEventListener('click', function () {
    var csv = JSON.parse(stored.textContent);
    var link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([csv], {type: 'text/csv'}));
    link.download = (document.title + '-table-' + (i + 1)).replace(/[^A-Za-z0-9_-]+/g, '_') + '.csv';
    document.body.appendChild(link); link.click(); link.remove();
  });
  box.parentNode.insertBefore(button, box.nextSibling);
});
</script>"""


def page(
    title: str,
    body: str,
    *,
    bundle_href: str = "vendor/vega-bundle.js",
    nav: str = "",
    base: str = "",
    badge: tuple[str, str] | None = None,
) -> str:
    """A complete offline page: local stylesheet and the local Vega bundle, nothing fetched.

    ``base``: the site's top seen from a page in a folder (``"../"``): every relative link then
    reads from there (dashboards/common/addresses.py). ``badge``: (label, HTML) of the data a page
    shows when it is not research data (``("Demo data", '<span class="badge">…')``), before its title.
    """
    head = f'<base href="{text(base)}">' if base else ""
    label, mark = badge or ("", "")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{head}'
        f"<title>{text(f'{label}: {title}' if label else title)}</title><style>{STYLE}</style>"
        f'<script src="{text(bundle_href)}"></script></head>'
        f"<body><nav>{nav}</nav><h1>{mark}{text(title)}</h1>{body}{CSV_SCRIPT}</body></html>"
    )
