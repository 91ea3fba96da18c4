"""A deliberately naive reference for finite-prompt softmax attention: a Python loop over prompts
and queries, softmax written out with the maximum subtracted. Independent of numerics/attention."""

import math

import numpy as np


def naive_attention(tokens, U, V, queries):
    P, L, d = tokens.shape
    out = np.zeros((P, len(queries), V.shape[0]))
    for p in range(P):
        for q, z in enumerate(queries):
            scores = [float(tokens[p, i] @ U @ z) for i in range(L)]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            out[p, q] = sum(w * (V @ tokens[p, i]) for i, w in enumerate(weights)) / total
    return out
