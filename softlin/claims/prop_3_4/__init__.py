"""Proposition 3.4 (gradient concentration): the claim and its parts."""
