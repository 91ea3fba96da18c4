"""Proposition 3.1 (output concentration): the claim and its parts."""
