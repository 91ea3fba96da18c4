"""The package list, found from the folders so that a new package cannot be left out of the wheel
(everything else is in pyproject.toml). derivations/ and numerics/ install as softlin.derivations
and softlin.numerics (pyproject's package-dir): their subpackages are found under those names."""

from setuptools import find_packages, setup


def packages() -> list[str]:
    found = find_packages(include=["softlin", "softlin.*"])
    for folder in ("derivations", "numerics"):
        found += [f"softlin.{folder}"] + [f"softlin.{folder}.{p}" for p in find_packages(folder)]
    return found


setup(packages=packages())
