"""Which study types an audit runs for each kind of subject, and the study config each one gets.

Every study type names the kinds it measures (:data:`STUDY_TYPES`, a dict registry); for the
others it says why it does not apply. A planned study is an ordinary study config (TOML) over the
family's demo or real data (:mod:`biaswh.common.audit_data`), written into the audit's folder, with
the audit's seed and verdict policy,
and the subjects it measures under the names its results give them (``measured_as``). Subjects
whose names would collide in one run (two versions of ``bm25``) go to separate runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from biaswh.common.audit_config import Audit
from biaswh.common.audit_data import dialect_data, sentence_vectors, silent_bias_data, weat_data
from biaswh.common.audit_plan import PlannedStudy, Skipped, file_path, numbered, study_head, subject_batches
from biaswh.common.audit_recommendation import can_be_asked, no_endpoint, recommendation_studies
from biaswh.common.audit_subjects import Subject

A_KIND = {"retriever": "a retriever", "embedding": "an embedding", "llm": "an LLM"}


@dataclass(frozen=True)
class StudyType:
    """A study type's kinds, its config builder and, for every other kind, why it does not apply."""

    kinds: tuple[str, ...]
    build: Callable[[Audit, list[Subject]], list[PlannedStudy]] | None
    not_applicable: str
    # for a study type the audit cannot run from what a subject gives: what to provide instead
    missing: Callable[[Subject], str] | None = None
    # which subjects of its kinds it can run (default: every one); the others are "not run", with ``missing``
    runnable: Callable[[Subject], bool] = lambda subject: True


def _retrieval_settings(audit: Audit, batch: list[Subject]) -> tuple[list[dict], dict, dict]:
    """The dialect data's ingest steps, the batch's retrieval settings and the run parameters."""
    ingest, settings, parameters = dialect_data(audit.data, audit.real_data)
    precomputed = settings.pop("precomputed", None)
    retrieval: dict = {"retrievers": [s.configuration["retriever"] for s in batch], **settings}
    for name in ("bm25", "embedding"):
        chosen = next((s.configuration[name] for s in batch if name in s.configuration), None)
        if chosen is not None:
            retrieval[name] = dict(chosen)
    retrieval.setdefault("embedding", {"provider": "local", "model": "all-MiniLM-L6-v2"})
    if precomputed and retrieval["embedding"].get("model") == "all-MiniLM-L6-v2":
        retrieval["embedding"]["precomputed"] = precomputed
    return ingest, retrieval, parameters


def _retriever_batches(subjects: list[Subject]) -> list[list[Subject]]:
    return subject_batches(subjects, key=lambda s: s.configuration["retriever"], shared=("bm25", "embedding"))


def dialect_studies(audit: Audit, subjects: list[Subject]) -> list[PlannedStudy]:
    """Retrievers on the SAE/AAE pairs (the data and retrieval settings of ``studies/demo.toml``, or when real
    of ``studies/squad_dialect.toml``)."""
    batches = _retriever_batches(subjects)
    planned = []
    for number, batch in enumerate(batches, start=1):
        config = study_head(
            audit,
            numbered("dialect", number, len(batches)),
            "dialect retrieval bias of " + ", ".join(s.label for s in batch),
            jobs=["retrieval"],
            analysis=["dialect_tests"],
        )
        config["ingest"], config["retrieval"], config["parameters"] = _retrieval_settings(audit, batch)
        config["retrieval"]["query_sets"] = ["pairs"]
        config["dialect"] = {"bootstrap_resamples": 2000}
        members = tuple((s, s.configuration["retriever"]) for s in batch)
        planned.append(PlannedStudy("dialect retrieval bias", config["study"]["name"], config, members))
    return planned


def evaluation_studies(audit: Audit, subjects: list[Subject]) -> list[PlannedStudy]:
    """Retrievers' quality on the dialect study's own questions: each pair's SQuAD question (its
    reference wording), its own context relevant, over the dialect study's corpus and settings."""
    batches = _retriever_batches(subjects)
    planned = []
    for number, batch in enumerate(batches, start=1):
        config = study_head(
            audit,
            numbered("evaluation", number, len(batches)),
            "retrieval quality of " + ", ".join(s.label for s in batch) + " on the dialect pairs' questions",
            jobs=["evaluation"],
            analysis=["evaluation"],
        )
        ingest, retrieval, parameters = _retrieval_settings(audit, batch)
        squad, pairs = ingest
        config["ingest"], config["retrieval"] = ingest, retrieval
        config["evaluation"] = {
            "query_set": f"squad_questions:{squad.get('name', squad['split'])}",
            "pair_set": pairs.get("name") or Path(pairs["path"]).stem,
            "bootstrap_resamples": 2000,
            "runs": [{"label": "baseline", "baseline": True}],
        }
        config["parameters"] = {"evaluation_k": [k for k in (1, 3, 5, 10, 20) if k <= retrieval["depth"]]}
        members = tuple((s, s.configuration["retriever"]) for s in batch)
        planned.append(PlannedStudy("retrieval evaluation", config["study"]["name"], config, members))
    return planned


def weat_studies(audit: Audit, subjects: list[Subject]) -> list[PlannedStudy]:
    """Embeddings on the Caliskan et al. (2017) tests, and on demo data the demo user tests (as
    ``studies/demo_weat.toml``; when real, as ``studies/weat_word2vec.toml``)."""
    config = study_head(
        audit,
        "weat",
        "WEAT of " + ", ".join(s.label for s in subjects),
        jobs=["weat"],
        analysis=["weat_report"],
    )
    tests, test_sets, weat_settings = weat_data(audit.data)
    config["ingest"] = tests
    for subject in subjects:
        settings = subject.configuration
        step = {"source": "word_vectors", "path": audit.resolve(file_path(settings["path"])), "name": subject.label}
        if "format" in settings:
            step["format"] = settings["format"]
        if settings.get("format") == "sentence_encoder":
            step["words_from"] = test_sets
            step["templates"] = settings.get("templates", ["This is {word}.", "That is {word}.", "{word} is here."])
            if sentence_vectors(audit.data, settings["path"]):
                step["precomputed"] = sentence_vectors(audit.data, settings["path"])
        config["ingest"].append(step)
    config["weat"] = weat_settings
    members = tuple((s, s.label) for s in subjects)
    return [PlannedStudy("word-embedding association (WEAT)", config["study"]["name"], config, members)]


def silent_bias_studies(audit: Audit, subjects: list[Subject]) -> list[PlannedStudy]:
    """LLMs' answers to the vignettes (``studies/demo_silent_bias.toml``'s, or when real
    ``studies/silent_bias.toml``'s 58): recorded, or asked of the subject's endpoint."""
    config = study_head(
        audit,
        "silent_bias",
        "silent bias of " + ", ".join(s.label for s in subjects),
        jobs=[],
        analysis=["silent_bias"],
    )
    vignettes = silent_bias_data(audit.data, audit.real_data)
    config["ingest"] = [vignettes]
    for subject in subjects:
        config["ingest"].append(_answers_step(audit, subject, vignettes))
    config["silent_bias"] = {"confidence": 0.95}
    members = tuple((s, s.label) for s in subjects)
    return [PlannedStudy("silent bias", config["study"]["name"], config, members)]


def _answers_step(audit: Audit, subject: Subject, vignettes: dict) -> dict:
    """A subject's answers to the vignettes: its recorded generations, or else asked of its endpoint
    (the answers kept under the warehouse folder, the key read from ``api_key_env`` only)."""
    settings = subject.configuration
    if "generations" in settings:
        path = audit.resolve(file_path(settings["generations"]))
        step = {"source": "silent_bias_generations", "path": path, "vignette_set": vignettes["name"]}
        return {**step, "model": subject.label}
    return {
        "source": "silent_bias_generate",
        "path": vignettes["path"],
        "vignette_set": vignettes["name"],
        "base_url": settings["endpoint"],
        "model": settings.get("model", subject.name),
        "api_key_env": settings.get("api_key_env", "OPENAI_API_KEY"),
        "name": subject.label,
    }


def _can_answer(subject: Subject) -> bool:
    """Recorded answers, or an endpoint that can be asked (its key set, when it names one)."""
    return "generations" in subject.configuration or can_be_asked(subject)


def _no_generations(subject: Subject) -> str:
    if "endpoint" in subject.configuration:
        return no_endpoint(subject)
    return (
        f"{subject.label} needs its answers to the vignettes: give the subject generations ="
        ' "answers.jsonl" (its recorded answers), or endpoint = "https://.../v1" (and model, api_key_env)'
        " to have the audit ask it (docs/studies/silent-bias.md)"
    )


# study type -> what it measures and how the audit runs it (the order the audit runs them in).
STUDY_TYPES: dict[str, StudyType] = {
    "dialect retrieval bias": StudyType(
        ("retriever",), dialect_studies, "it measures how a retriever ranks documents for paired SAE/AAE questions"
    ),
    "retrieval evaluation": StudyType(
        ("retriever",), evaluation_studies, "it measures how well a retriever finds the documents judged relevant"
    ),
    "word-embedding association (WEAT)": StudyType(
        ("embedding",), weat_studies, "it measures associations between word or sentence vectors"
    ),
    "silent bias": StudyType(
        ("llm",),
        silent_bias_studies,
        "it measures an LLM's answers to clinical vignettes",
        missing=_no_generations,
        runnable=_can_answer,
    ),
    "recommendation bias": StudyType(
        ("llm",),
        recommendation_studies,
        "it measures which posts an LLM recommends from a pool",
        missing=no_endpoint,
        runnable=can_be_asked,
    ),
}


def plan_audit(audit: Audit) -> tuple[list[PlannedStudy], list[Skipped]]:
    """The study runs of ``audit`` and the subject and study type pairs it does not run, with why."""
    planned, skipped = [], []
    for study_type, spec in STUDY_TYPES.items():
        applies = [s for s in audit.subjects if s.kind in spec.kinds]
        for subject in audit.subjects:
            if subject.kind not in spec.kinds:
                reason = f"{A_KIND[subject.kind]} is not what {study_type} examines: {spec.not_applicable}"
                skipped.append(Skipped(subject, study_type, "does not apply", reason))
        runs = [s for s in applies if spec.runnable(s)]
        skipped += [Skipped(s, study_type, "not run", spec.missing(s)) for s in applies if s not in runs]
        if runs:
            planned += spec.build(audit, runs)
    return planned, skipped
