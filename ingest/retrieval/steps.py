"""Study ingest sources ``[[ingest]] source = "corpus"``, ``"corpus_queries"`` and ``"squad"``.

SQuAD lives in the retrieval family: its contexts are a corpus and its questions carry a
gold context (qrels). The dialect family reads SQuAD's questions from the warehouse
(``raw.squad_questions``) and never imports this module.

```toml
[[ingest]]
source = "corpus"
path = "notes/internal_docs.md"                          # BEIR folder, .tsv, .jsonl/.csv/.parquet, text folder
name = "internal_docs"
unit = "line"                                            # text sources: file, line or heading

[[ingest]]
source = "corpus_queries"
path = "notes/gold_queries.md"                           # BEIR queries.jsonl, .tsv, .csv/.jsonl, Markdown, TREC topics
name = "gold_queries"
corpus = "internal_docs"
```
"""

from __future__ import annotations

from biaswh.ingest.common.versions import IngestResult
from biaswh.ingest.retrieval.corpus import load_corpus, load_corpus_queries
from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.runs.study import register_ingester
from biaswh.warehouse.settings.config_schema import STRING, Choice
from biaswh.warehouse.settings.study_schema import ingest_step


def _options(step: dict) -> dict:
    return {k: v for k, v in step.items() if k not in ("source", "path")}


@register_ingester(
    "corpus",
    options=ingest_step(
        {"name": STRING, "unit": STRING, "id_column": STRING, "text_column": STRING, "title_column": STRING}
    ),
)
def ingest_corpus(con, study, step: dict) -> IngestResult:
    """``path`` and the options of :func:`~biaswh.ingest.retrieval.corpus.load_corpus` (name, unit, columns)."""
    return load_corpus(con, study.resolve(step["path"]), **_options(step))


@register_ingester(
    "corpus_queries",
    options=ingest_step(
        {
            "corpus": STRING,
            "name": STRING,
            "id_column": STRING,
            "text_column": STRING,
            "format": Choice(("trec_topics",)),
            "topic_field": Choice(("title", "desc", "narr")),
        },
        required=("corpus",),
    ),
)
def ingest_corpus_queries(con, study, step: dict) -> IngestResult:
    """``path``, ``corpus`` and the options of :func:`biaswh.ingest.retrieval.corpus.load_corpus_queries`."""
    return load_corpus_queries(con, study.resolve(step["path"]), **_options(step))


@register_ingester("squad", options=ingest_step({"split": STRING, "name": STRING}))
def ingest_squad(con, study, step: dict) -> IngestResult:
    """``path`` (SQuAD JSON, JSONL, Parquet, or ``hf:squad``), ``split``, optional ``name``."""
    return load_squad(con, study.resolve(step["path"]), **_options(step))
