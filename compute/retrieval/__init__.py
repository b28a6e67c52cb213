"""The retrieval engine: BM25 (identical to rank_bm25), dense search over LanceDB, hybrid fusion.

Retrieval output is raw data: the study job ``compute/retrieval/steps.py`` runs these
retrievers over the marts' corpus and queries and writes ``raw.retrieval_*`` rows.
"""
