"""Write a certificate's certified c1 (prop-3.1's paper form, or prop-3.4's grad_V one) as a Coq
file that Coq's `interval` tactic checks (derivations/coq_export.py says what the file proves).

    python benchmarks/c1_to_coq.py reports/certificates/prop-3.1.json > c1.v && coqc c1.v
    python benchmarks/c1_to_coq.py reports/certificates/prop-3.4.json > c1v.v && coqc c1v.v

Needs Coq with the coq-interval library (Debian: `apt-get install coq libcoq-interval`). The
scenario's matrices and the fixed query come from the certificate; sigma is recomputed from its
token covariance the way the claim computes it (the certificate rounds it to 8 digits); c1 and
L_T are the certificate's. `--c1 X` writes another c1 (a lowered one must fail to check).
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from softlin.claims.shared.common import subgaussian_sigma
from softlin.derivations import coq_export

# claim -> (the quantity holding the every-L proof, whether V is the identity with multiplier k)
SOURCES = {"prop-3.1": ("bound_every_l", False), "prop-3.4": ("grad_v_bound_every_l", True)}


def inputs(cert: dict) -> dict:
    """The file's inputs from a certificate: q, tp (exact), sigma, c1 (decimal), decreasing_from."""
    claim = cert["claim"]
    if claim not in SOURCES:
        raise ValueError(f"{claim}: no certified c1 (claims with one: {', '.join(SOURCES)})")
    quantity, gradient = SOURCES[claim]
    form = (cert["quantities"].get(quantity) or {}).get("paper_form")
    if not form:
        raise ValueError(f"{claim}: the certificate has no certified c1 ({quantity}.paper_form)")
    s = cert["scenario"]
    Gamma, U, V = (np.array(s[key], dtype=float) for key in ("cov", "U", "V"))
    z = np.array(cert["quantities"]["fixed_query"], dtype=float)
    k = V.shape[0]
    if gradient:
        V = np.eye(Gamma.shape[0])
    q, tp = coq_export.exact_invariants(Gamma, U, V, z, multiplier=k if gradient else 1)
    return {
        "q": q,
        "tp": tp,
        "sigma": subgaussian_sigma(Gamma),
        "c1": repr(float(form["c1"][1])),
        "decreasing_from": int(form["decreasing_from_L"]),
        "title": f"{claim}: {quantity}.paper_form, c1 = {form['c1'][1]}",
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificate")
    parser.add_argument("--c1", help="write this c1 instead of the certificate's")
    args = parser.parse_args(argv)
    with open(args.certificate) as fh:
        data = inputs(json.load(fh))
    if args.c1 is not None:
        data["c1"] = args.c1
    title = data.pop("title")
    sys.stdout.write(coq_export.c1_source(**data, title=title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
