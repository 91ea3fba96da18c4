"""The folder numerics/ is the package softlin.numerics
(pyproject.toml maps it: [tool.setuptools.package-dir]).

Imported under its folder name (`import numerics` from the repository root) it would be a second,
separate copy of every module, with its own state: refused, naming the right import.
"""

if __name__ != "softlin.numerics":
    raise ImportError(
        f"{__name__!r} is the folder of the package softlin.numerics: import softlin.numerics "
        "(installed with pip install -e .), not numerics"
    )
