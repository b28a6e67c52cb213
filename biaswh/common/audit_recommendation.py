"""An audit's recommendation-bias runs: LLM subjects served at an OpenAI-compatible endpoint, asked
to recommend posts by the ``recsys_experiment`` runner (the key read from ``api_key_env`` only)."""

from __future__ import annotations

import os

from biaswh.common.audit_config import Audit
from biaswh.common.audit_data import RECOMMENDATION_TRIALS, described, recsys_pool
from biaswh.common.audit_plan import PlannedStudy, file_path, numbered, study_head, subject_batches
from biaswh.common.audit_subjects import Subject


def can_be_asked(subject: Subject) -> bool:
    """An endpoint, and the key its ``api_key_env`` names set in this environment (a subject that names
    no variable is asked without a key, as a local server is, or with $OPENAI_API_KEY when set)."""
    variable = subject.configuration.get("api_key_env")
    return "endpoint" in subject.configuration and (variable is None or bool(os.environ.get(variable)))


def no_endpoint(subject: Subject) -> str:
    """What a subject that cannot be asked to recommend must provide: an endpoint, or its key in the environment."""
    if "endpoint" in subject.configuration:
        variable = subject.configuration["api_key_env"]
        return (
            f"{subject.label}'s endpoint needs its key: set the environment variable {variable} (the key is"
            " read from it only, never stored)"
        )
    return (
        f"{subject.label} "
        "needs an OpenAI-compatible endpoint serving the model: the recommendation runner asks it to pick"
        " posts (recorded silent-bias generations hold no recommendations); give the subject endpoint ="
        ' "https://.../v1" (and model, api_key_env: the key is read from that environment variable only)'
    )


def recommendation_studies(audit: Audit, subjects: list[Subject]) -> list[PlannedStudy]:
    """LLMs at their endpoints asked to recommend posts (the ``recsys_experiment`` runner and the
    ``recsys_bias`` job, as ``docs/studies/recsys.md``): each subject its own result set, on its own
    pool or the demo pool (``studies/demo_data/recsys/pool_demo.csv``). Subjects that send one model
    name go to separate runs (the results name a subject by its model)."""
    batches = subject_batches(subjects, key=_model_of, shared=())
    planned = []
    for number, batch in enumerate(batches, start=1):
        own_pools = all("pool" in s.configuration for s in batch)
        config = study_head(
            audit,
            numbered("recommendation", number, len(batches)),
            "recommendation bias of " + ", ".join(s.label for s in batch),
            jobs=["recsys_bias"],
            analysis=[],
        )
        if not own_pools:  # the demo pool: the run's data is demo data, whatever the audit's
            config["study"]["data"] = "demo"
            config["study"]["description"] = config["study"]["description"].replace(
                described(audit.data), described("demo")
            )
        config["ingest"] = [_experiment_step(audit, subject) for subject in batch]
        config["recsys"] = {"pool": "non_recommended", "yates": True, "min_group_size": 10}
        members = tuple((s, _model_of(s)) for s in batch)
        planned.append(PlannedStudy("recommendation bias", config["study"]["name"], config, members))
    return planned


def _model_of(subject: Subject) -> str:
    return subject.configuration.get("model", subject.name)


def _experiment_step(audit: Audit, subject: Subject) -> dict:
    settings = subject.configuration
    pool, features = recsys_pool()
    if "pool" in settings:
        pool, features = audit.resolve(file_path(settings["pool"])), audit.resolve(file_path(settings["pool_features"]))
    return {
        "source": "recsys_experiment",
        "path": pool,
        "features_path": features,
        "name": f"{audit.name}__{subject.label}",
        "base_url": settings["endpoint"],
        "models": [_model_of(subject)],
        "api_key_env": settings.get("api_key_env", "OPENAI_API_KEY"),
        **RECOMMENDATION_TRIALS,
        "text_features": True,
    }
