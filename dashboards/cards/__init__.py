"""One findings card per study type; importing the package registers them in the index's order."""
# ruff: noqa: I001  (the import order below is the index's order)

import dashboards.cards.dialect  # noqa: F401
import dashboards.cards.dialect_features  # noqa: F401
import dashboards.cards.evaluation  # noqa: F401
import dashboards.cards.weat  # noqa: F401
import dashboards.cards.silent_bias  # noqa: F401
import dashboards.cards.recsys  # noqa: F401
