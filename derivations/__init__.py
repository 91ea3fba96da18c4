"""The folder derivations/ is the package softlin.derivations
(pyproject.toml maps it: [tool.setuptools.package-dir]).

Imported under its folder name (`import derivations` from the repository root) it would be a second,
separate copy of every module, with its own state: refused, naming the right import.
"""

if __name__ != "softlin.derivations":
    raise ImportError(
        f"{__name__!r} is the folder of the package softlin.derivations: import "
        "softlin.derivations (installed with pip install -e .), not derivations"
    )
