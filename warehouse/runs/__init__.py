"""Run records: the run registry, sub-runs, per-run parameters, pending failures and the chain that runs a study."""
