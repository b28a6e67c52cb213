"""The evaluation family's commands: ``biaswh ingest qrels``."""
