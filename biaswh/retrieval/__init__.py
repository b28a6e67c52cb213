"""The retrieval family's commands: ``biaswh ingest squad | corpus | corpus-queries``, ``trec``, ``search``."""
