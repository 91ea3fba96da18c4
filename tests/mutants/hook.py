"""Load softlin with one source-level slip applied, without touching the working tree.

A meta-path finder placed first on `sys.meta_path` serves the mutated module: it asks the other
finders where the real module lives, reads that file, applies the mutant's single text replacement
(which must match exactly once, or the mutant is stale) and compiles the result under the real
file name, so tracebacks point at the right lines. When the slip is in derivations/, the emitted
kernels are regenerated in memory from the mutated derivations (`emit.generated_source`), as
`softlin derive` would after a real slip: the kernels and the SymPy expressions then agree, and
only an independent route can catch it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

GENERATED = "softlin.numerics.kernels._generated"


def module_name(path: str) -> str:
    """Repository path -> module name (derivations/ and numerics/ install under softlin)."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[0] in ("derivations", "numerics"):
        parts = ["softlin", *parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class _SourceLoader(importlib.abc.Loader):
    def __init__(self, origin: str, make_source):
        self.origin, self.make_source = origin, make_source

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(compile(self.make_source(), self.origin, "exec"), module.__dict__)


class MutatingFinder(importlib.abc.MetaPathFinder):
    def __init__(self, mutant):
        self.mutant = mutant
        self.target = module_name(mutant.path)
        self.regenerate_kernels = mutant.path.startswith("derivations/")

    def _real_spec(self, fullname, path):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path)
            if spec is not None:
                return spec
        return None

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.target:
            real = self._real_spec(fullname, path)
            make = lambda: apply(self.mutant, Path(real.origin).read_text())  # noqa: E731
        elif fullname == GENERATED and self.regenerate_kernels:
            real = self._real_spec(fullname, path)

            def make():
                from softlin.derivations import emit

                return emit.generated_source()
        else:
            return None
        spec = importlib.util.spec_from_loader(
            fullname,
            _SourceLoader(real.origin, make),
            origin=real.origin,
            is_package=real.submodule_search_locations is not None,
        )
        if real.submodule_search_locations is not None:
            spec.submodule_search_locations = real.submodule_search_locations
        spec.has_location = True
        return spec


def apply(mutant, source: str) -> str:
    count = source.count(mutant.old)
    if count != 1:
        raise LookupError(
            f"mutant {mutant.name}: its text occurs {count} times in {mutant.path} (stale mutant)"
        )
    return source.replace(mutant.old, mutant.new)


def install(mutant) -> None:
    if any(name == "softlin" or name.startswith("softlin.") for name in sys.modules):
        raise RuntimeError("install the mutant before softlin is imported")
    # The proof cache is keyed on the files on disk, which the slip does not touch: a cached proof
    # would hide it. Set empty (not removed), so tests/conftest.py does not point it at a folder.
    os.environ["SOFTLIN_PROOF_CACHE"] = ""
    sys.meta_path.insert(0, MutatingFinder(mutant))
