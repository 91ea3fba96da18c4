"""`softlin sweep`: a claim over a grid of scenarios (Dask), its store, summary and figures."""
