"""`softlin hunt`: the search of a claim's hypothesis space for a counterexample (Hypothesis)."""
