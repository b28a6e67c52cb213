"""The retrieval engine: BM25 (identical to rank_bm25), dense search over LanceDB, hybrid fusion.

Retrieval output is raw data: the study job ``compute/steps/retrieval.py`` runs these
retrievers over the marts' corpus and queries and writes ``raw.retrieval_*`` rows.
"""
