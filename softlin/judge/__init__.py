"""The judge: each kind of judgement a check makes, written once (docs/certificates.md, "How a
verdict is made").

    check.py   the record of one judgement (Check), its tiers and units, the claim's status
    rules.py   the five rules a check's `passed` follows from, undecided on non-finite input
    levels.py  false-alarm levels (proven bound or nominal) and the family-wise figure
"""
