"""finite-prompt-risk: the exact 1/L term and the exact finite-L risk of the authors' scalar
model."""
