"""Assumption 3.3 (the tilted moments): the claim and its steps."""
