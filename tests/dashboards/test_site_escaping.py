from biaswh.dashboards.common.site import build_site
from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.retrieval.squad import load_squad
from tests.conftest import DEMO_DATA

HOSTILE = '<script>alert("x")</script>'


def test_every_text_on_the_site_is_escaped(con, tmp_path):
    load_squad(con, str(DEMO_DATA / "squad_demo.json"))
    load_pairs(con, DEMO_DATA / "dialect_pairs_demo.csv", name=HOSTILE)
    site = build_site(con, tmp_path / "site")
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert HOSTILE not in html
    index = (site / "runs.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in index
