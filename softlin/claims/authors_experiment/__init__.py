"""authors-experiment: the authors' one-head experiment at CPU scale."""
