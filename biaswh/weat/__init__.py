"""The WEAT family's commands: ``biaswh ingest vectors | weat-tests``."""
