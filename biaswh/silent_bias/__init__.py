"""The silent-bias family's command: ``biaswh generate``."""
