"""The wheel carries the card's layout: derivations/ and numerics/ install as softlin.derivations
and softlin.numerics, the emitted kernels included, and no top-level `numerics` or `derivations`
module.

The content check builds the wheel (a few seconds); the slow test installs it into a fresh virtual
environment outside the checkout and runs `softlin derive --check` there, so a module or data file
missing from the wheel fails here and not on a user's machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SOURCE_ROOTS = {
    "softlin": REPO / "softlin",
    "softlin/derivations": REPO / "derivations",
    "softlin/numerics": REPO / "numerics",
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy of what the distribution needs, so setuptools' build/ and egg-info folders
    # stay out of the checkout.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, source / name)
    for name in ("softlin", "derivations", "numerics"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(out)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    (path,) = out.glob("softlin-*.whl")
    return path


def expected_members() -> set[str]:
    names = set()
    for prefix, folder in SOURCE_ROOTS.items():
        for path in folder.rglob("*.py"):
            rel = path.relative_to(folder)
            if prefix == "softlin" and rel.parts[0] in ("derivations", "numerics"):
                continue
            names.add(f"{prefix}/{rel.as_posix()}")
    return names


def test_the_wheel_holds_every_module_and_the_generated_kernels(wheel):
    members = set(zipfile.ZipFile(wheel).namelist())
    missing = expected_members() - members
    assert not missing, f"modules missing from the wheel: {sorted(missing)}"
    assert "softlin/numerics/kernels/_generated.py" in members


def test_the_wheel_installs_no_top_level_numerics_or_derivations(wheel):
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops <= {"softlin"} | {t for t in tops if t.endswith(".dist-info")}, tops


@pytest.mark.slow
def test_a_wheel_install_outside_the_checkout_passes_derive_check(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True
    )
    # Run from an empty folder: nothing of the checkout is importable, only the installed wheel.
    work = tmp_path / "elsewhere"
    work.mkdir()
    result = subprocess.run(
        [str(env_dir / "bin" / "softlin"), "derive", "--check", "--out", str(REPO / "reports")],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    origin = subprocess.run(
        [str(py), "-c", "import softlin.numerics.kernels as k; print(k.__file__)"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in origin
