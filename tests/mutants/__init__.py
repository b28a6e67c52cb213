"""`make mutants`: mutation testing of the guard modules with mutmut (run ``python -m tests.mutants``)."""
