"""Certificate I/O: the one place that turns a certificate dict into bytes and back.

A leaf module (imports nothing from softlin), so claims, the renderer and the CLI share one writer.

Precision. A certificate must be byte-identical on every machine that runs the same seed and profile,
but float64 results differ in their last bits from one CPU to another (BLAS kernels sum in a different
order: ~1e-16 relative per operation). Measured on lemma-2.1 and finite-prompt-risk (quick), OpenBLAS
Haswell kernels against generic Prescott kernels (OPENBLAS_CORETYPE) and one thread against two:
at most 7e-13 relative, in studentised means that cancel (|z| ~ 0.05 with absolute noise 3.5e-14);
most numbers differ by <= 4e-15 or not at all. Hence every float is written

- with SIGNIFICANT_DIGITS = 8 significant digits: 1e-8 relative resolution, four decades above the
  worst measured noise, so a number lands on a rounding boundary with probability ~1e-4 at worst
  (~1e-7 for a typical number); and far below any statistical uncertainty a certificate reports;
- as 0.0 when its magnitude is below NOISE_FLOOR = 1e-11, except in a check's `bound`: such numbers are
  agreement measures at float64 rounding level whose digits are noise (kernel against quadrature:
  4.4e-16 with one BLAS kernel, 1.1e-15 with another; thm-5.2's ODE drift: 2.3e-12 against 1.7e-12).
  A check's bound is chosen beforehand (1e-25 for 40-digit agreement) and keeps its small values.

Texts (a check's `detail`) are written as the claims format them; a claim that prints a noise-level
number into a text (thm-5.2 prints its ODE errors with 3 digits) is not byte-reproducible across CPUs,
and `differences` compares the numbers inside texts at the same precision as the numbers.

Rounding is idempotent (a written certificate rewrites to the same bytes), and the in-memory certificate
keeps full precision (checks decide before rounding).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

SIGNIFICANT_DIGITS = 8
NOISE_FLOOR = 1e-11
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def round_float(x: float, floor: bool = True) -> float:
    """x at the stated precision (module docstring); non-finite values unchanged. `floor=False` keeps
    magnitudes below NOISE_FLOOR (a check's bound)."""
    if not math.isfinite(x) or x == 0:
        return x
    if floor and abs(x) < NOISE_FLOOR:
        return 0.0
    return float(f"{x:.{SIGNIFICANT_DIGITS - 1}e}")


def rounded(value, *, key: str | None = None):
    """A copy of a JSON-like value with every float rounded (inside a check's `bound`, without the
    noise floor)."""
    if isinstance(value, float):
        return round_float(value, floor=key != "bound")
    if isinstance(value, dict):
        return {k: rounded(v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, key=key if key == "bound" else None) for v in value]
    return value


def dumps(value) -> str:
    """The bytes of a certificate file (or a list of certificates): indented JSON at the stated
    precision, no NaN (non-finite numbers are strings, see claims.base.jsonable)."""
    return json.dumps(rounded(value), indent=2, allow_nan=False) + "\n"


def write(out: Path, cert: dict) -> Path:
    """Write `cert` to `<out>/certificates/<claim>.json` and return the path."""
    path = Path(out) / "certificates" / f"{cert['claim']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(cert))
    return path


def read(path: Path) -> dict:
    """One certificate file, as a dict; a ValueError names the file when it is not JSON."""
    try:
        return json.loads(Path(path).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"certificate {path} is not valid JSON: {exc}") from exc


def differences(old, new, path: str = "", limit: int = 8) -> list[str]:
    """Where two certificates differ beyond the stated precision: different structure, strings,
    booleans or integers, or floats more than one unit of the last written digit apart (so a number
    that straddles a rounding boundary on another machine is not a difference). Paths like
    `checks[3].passed`, at most `limit` of them."""
    out: list[str] = []

    def walk(a, b, where):
        if len(out) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                if k not in a or k not in b:
                    out.append(f"{where}.{k} {'added' if k not in a else 'removed'}".lstrip("."))
                else:
                    walk(a[k], b[k], f"{where}.{k}")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(f"{where} length {len(a)} -> {len(b)}".lstrip("."))
            else:
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, f"{where}[{i}]")
        elif isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool) \
                or isinstance(b, float) and isinstance(a, (int, float)) and not isinstance(a, bool):
            if not _close(float(a), float(b)):
                out.append(f"{where.lstrip('.')} {a!r} -> {b!r}")
        elif isinstance(a, str) and isinstance(b, str) and a != b:
            if not _same_text(a, b):
                out.append(f"{where.lstrip('.')} {_short(a)} -> {_short(b)}")
        elif a != b or type(a) is not type(b):
            out.append(f"{where.lstrip('.')} {_short(a)} -> {_short(b)}")

    walk(rounded(old), rounded(new), "")
    return out


def _close(a: float, b: float) -> bool:
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    if scale < 10 * NOISE_FLOOR:                       # one side written as 0, the other just above it
        return True
    return abs(a - b) <= scale * 10.0 ** (1 - SIGNIFICANT_DIGITS) * 1.0000001


def _same_text(a: str, b: str) -> bool:
    """Equal texts up to the numbers in them, which are compared like numbers (printed with %.3g, a
    number agrees to its printed digits: 1e-3 relative)."""
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
        fx, fy = float(x), float(y)
        scale = max(abs(fx), abs(fy))
        if fx != fy and scale >= 10 * NOISE_FLOOR and abs(fx - fy) > 1e-2 * scale:
            return False
    return True


def _short(x) -> str:
    text = json.dumps(x)
    return text if len(text) <= 40 else text[:37] + "..."
