"""The dialect family's commands: ``biaswh ingest pairs``, ``variants``, ``peek``."""
