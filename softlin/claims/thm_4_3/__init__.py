"""Theorem 4.3 (finite-prompt training tracks infinite-prompt training): the claim and its
routes."""
