"""The limit battery shared by lemma-2.1 (Gaussian tokens) and mixture (Gaussian-mixture tokens)."""
