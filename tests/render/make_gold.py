"""Write the expected renderer output for the synthetic certificates in gold/certificates.

    python tests/render/make_gold.py

Run it only when a renderer change is intended, then READ `git diff tests/render/gold` before
committing: the gold files are reviewed output, and tests/render/test_gold.py never writes them.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

GOLD = Path(__file__).resolve().parent / "gold"
EXPECTED = GOLD / "expected"


def render_synthetic(root: Path) -> Path:
    """Lay out gold/ in `root` as a project (README.md + reports/certificates) and render it."""
    from softlin.render import render

    out = root / "reports"
    shutil.copytree(GOLD / "certificates", out / "certificates")
    shutil.copyfile(GOLD / "README.in.md", root / "README.md")
    render.render_all(out)
    return out


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = render_synthetic(Path(tmp))
        if EXPECTED.exists():
            shutil.rmtree(EXPECTED)
        for path in sorted(
            p for p in Path(tmp).rglob("*") if p.is_file() and "certificates" not in p.parts
        ):
            target = EXPECTED / path.relative_to(tmp)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            print(f"wrote {target.relative_to(GOLD.parents[2])}")
        del out
    print("now review: git diff tests/render/gold", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
