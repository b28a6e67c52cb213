"""One yml naming scheme (dbt Labs' "how we structure our dbt projects"), checked by file name.

- staging:      ``_<source>__sources.yml`` and ``_<source>__models.yml`` in ``staging/<source>/``
- intermediate: ``_int_<family>__models.yml``
- marts:        ``_<family>__models.yml``
- seeds:        ``_<family>__seeds.yml``
- analysis:     ``_analysis_<family>__sources.yml`` (the ``analysis.*`` tables Python writes, as sources)
"""

import re

from tests.conftest import REPOSITORY_ROOT

DBT = REPOSITORY_ROOT / "dbt_project"


def _expected(path) -> re.Pattern:
    layer = path.relative_to(DBT).parts[1] if path.relative_to(DBT).parts[0] == "models" else "seeds"
    folder = path.parent.name
    return {
        "staging": re.compile(rf"_{folder}__(sources|models)\.yml"),
        "intermediate": re.compile(r"_int_[a-z_]+__models\.yml"),
        "marts": re.compile(r"_[a-z_]+__models\.yml"),
        "analysis": re.compile(r"_analysis_[a-z_]+__sources\.yml"),
        "seeds": re.compile(rf"_{folder}__seeds\.yml"),
    }[layer]


def test_every_property_file_follows_the_scheme():
    files = sorted([*(DBT / "models").rglob("*.yml"), *(DBT / "seeds").rglob("*.yml")])
    assert files, "no property files found"
    wrong = [str(p.relative_to(DBT)) for p in files if not _expected(p).fullmatch(p.name)]
    assert not wrong, f"yml files outside the naming scheme: {wrong}"


def test_marts_name_their_family_folder():
    for path in (DBT / "models" / "marts").rglob("*.yml"):
        family = path.name.removeprefix("_").removesuffix("__models.yml")
        assert path.parent.name in (family, "marts"), f"{path.relative_to(DBT)} is not named after its folder"
