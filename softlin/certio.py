"""Certificate I/O: the one place that turns a certificate dict into bytes and back.

A leaf module (imports nothing from softlin), so claims, the renderer and the CLI share one writer.

Precision. float64 results differ in their last bits from one CPU to another (BLAS kernels sum in
another order, ~1e-16 relative per operation; measured: OpenBLAS SkylakeX against Haswell
kernels, one thread against two). Most numbers of a certificate move by <= 1e-12 relative; a few
move far more, because their own error is far larger than rounding: an optimizer's argmin (to its
tolerance), a gradient at an optimum (zero within its stated error), an error estimate. Hence

- every float is written with SIGNIFICANT_DIGITS = 8 significant digits and compared to one unit of
  the last one; a number whose digits below that are not known is declared in the certificate's
  `precision` list (`precision_entry`: a path pattern, its stated error, the reason), and compared
  within that error instead. Verdicts, texts outside numbers and the structure are compared exactly;
- results below NOISE_FLOOR = 1e-11 in magnitude are written as 0.0 (agreement measures at float64
  rounding level, e.g. kernel against quadrature 4.4e-16 with one BLAS kernel, 1.1e-15 with
  another), except in a check's `bound`, chosen beforehand (1e-25 for 40-digit agreement);
- inputs are not results: the `scenario` is written exactly (and the `precision` declarations too);
- `write` leaves an existing certificate untouched when the new one has no difference, so a re-run
  on another CPU leaves the committed files, and the pages rendered from them, byte for byte as they
  were.

Texts (a check's `detail`) are written as the claims format them; the numbers inside are compared to
their printed digits (1e-2), or at a declared precision.

Rounding is idempotent (a written certificate rewrites to the same bytes), and the in-memory
certificate keeps full precision (checks decide before rounding).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

SIGNIFICANT_DIGITS = 8
NOISE_FLOOR = 1e-11
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def round_float(x: float, floor: bool = True) -> float:
    """x at the stated precision (module docstring); non-finite values unchanged. `floor=False`
    keeps magnitudes below NOISE_FLOOR (a check's bound)."""
    if not math.isfinite(x) or x == 0:
        return x
    if floor and abs(x) < NOISE_FLOOR:
        return 0.0
    return float(f"{x:.{SIGNIFICANT_DIGITS - 1}e}")


# Top-level fields of a certificate written exactly: the `scenario` is an input, not a result
# (Python's shortest repr of a float64 reads back to the same bits, so the certificate records what
# ran); the `precision` declarations are tolerances chosen by the claim, like a check's bound.
EXACT_FIELDS = ("scenario", "precision")


def rounded(value, *, key: str | None = None, top: bool = True):
    """A copy of a JSON-like value with every float rounded (inside a check's `bound`, without the
    noise floor), except the certificate's EXACT_FIELDS (`top`: `value` is the certificate
    itself)."""
    if isinstance(value, dict) and top:
        return {
            k: v if k in EXACT_FIELDS else rounded(v, key=k, top=False) for k, v in value.items()
        }
    if isinstance(value, float):
        return round_float(value, floor=key != "bound")
    if isinstance(value, dict):
        return {k: rounded(v, key=k, top=False) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, key=key if key == "bound" else None, top=top) for v in value]
    return value


def dumps(value) -> str:
    """The bytes of a certificate file (or a list of certificates): indented JSON at the stated
    precision, no NaN (non-finite numbers are strings, see core.claim.jsonable)."""
    return json.dumps(rounded(value), indent=2, allow_nan=False) + "\n"


def write(out: Path, cert: dict) -> Path:
    """Write `cert` to `<out>/certificates/<claim>.json` atomically and return the path.

    When that file already holds a certificate that `differences` finds equal to `cert`
    (every number within its stated precision, every verdict, id and text the same), the file is
    left as it is: a re-run on another CPU, whose last digits differ, then leaves a committed
    certificate, and so the pages rendered from it, byte for byte unchanged."""
    path = Path(out) / "certificates" / f"{cert['claim']}.json"
    text = dumps(cert)
    if path.is_file():
        try:
            if not differences(read(path), json.loads(text)):
                return path
        except ValueError:  # not a certificate any more: overwrite it
            pass
    atomic_write(path, text.encode())
    return path


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path`, never replacing what the path names by something else:

    - a symbolic link is followed and its target written (the link stays a link);
    - a regular file (or a new one) is written through a temporary file in the target's folder and
      a rename, so that an interrupt leaves the old file or the new one, never a truncated one;
    - a character device or a FIFO (/dev/null, /dev/stdout, a pipe a reader waits on) is written
      through as a stream: renaming over it would replace the device entry (as root) or the pipe by
      a regular file, and the reader would never see the data;
    - anything else (a directory, a block device, a socket) is refused with a ValueError naming the
      path (the CLI refuses it before any work: softlin.commands.output_problem)."""
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        fd = os.open(target, os.O_WRONLY)  # no O_CREAT, no O_TRUNC: the entry is used as it is
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(
            f"cannot write {str(path)!r}: not a regular file, character device or FIFO"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def read(path: Path) -> dict:
    """One certificate file, as a dict; a ValueError names the file when it is not JSON."""
    try:
        return json.loads(Path(path).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"certificate {path} is not valid JSON: {exc}") from exc


def differences(old, new, path: str = "", limit: int | None = 8) -> list[str]:
    """Where two certificates differ beyond their stated precision. Compared exactly: structure,
    keys, booleans (verdicts), strings outside numbers, the scenario, profile and seed. Numbers:
    within one unit of the eighth written digit (a number that straddles a rounding boundary on
    another machine is not a difference), or, at a path the certificate's `precision` declares
    (see `precision_entry`), within that entry's stated error; numbers inside texts likewise, or to
    their printed 1e-2. The declared tolerances of both certificates are merged (the larger wins)
    and the `precision` section itself is compared by its paths only, since a stated error is itself
    a computed number. Checks are matched by their ids: paths like
    `checks[prop-3.1/fixed/enclosure].passed true -> false`, and "check <id> added" or "removed". At
    most `limit` of them (None: all)."""
    out: list[str] = []
    a, b = rounded(old), rounded(new)
    rules = _precision_rules(a, b) if isinstance(a, dict) and isinstance(b, dict) else []

    def walk(a, b, where):
        if limit is not None and len(out) >= limit:
            return
        tol = _tolerance(rules, where.lstrip("."))
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                if k not in a or k not in b:
                    out.append(f"{where}.{k} {'added' if k not in a else 'removed'}".lstrip("."))
                elif not where and k == "precision":
                    pa, pb = [e.get("path") for e in a[k]], [e.get("path") for e in b[k]]
                    if pa != pb:
                        out.append(f"precision paths {_short(pa)} -> {_short(pb)}")
                else:
                    walk(a[k], b[k], f"{where}.{k}")
        elif where == ".checks" and None not in (ida := _by_id(a), idb := _by_id(b)):
            out.extend(
                [f"check {i} removed" for i in ida if i not in idb]
                + [f"check {i} added" for i in idb if i not in ida]
            )
            common = [i for i in ida if i in idb]
            if common != [i for i in idb if i in ida]:
                out.append("checks reordered")
            for i in common:
                walk(ida[i], idb[i], f"{where}[{i}]")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(f"{where} length {len(a)} -> {len(b)}".lstrip("."))
            else:
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(x, y, f"{where}[{i}]")
        elif (
            _is_number(a)
            and _is_number(b)
            and (isinstance(a, float) or isinstance(b, float) or tol)
        ):
            if not _close(float(a), float(b), tol):
                out.append(f"{where.lstrip('.')} {a!r} -> {b!r}")
        elif isinstance(a, str) and isinstance(b, str) and a != b:
            if not _same_text(a, b, tol):
                out.append(f"{where.lstrip('.')} {_short(a)} -> {_short(b)}")
        elif a != b or type(a) is not type(b):
            out.append(f"{where.lstrip('.')} {_short(a)} -> {_short(b)}")

    walk(a, b, path)
    return out if limit is None else out[:limit]


def changed_checks(differences: list[str]) -> dict[str, list[str]]:
    """{check id: its differences} from `differences` (the entries that name a check by its id)."""
    out: dict[str, list[str]] = {}
    for line in differences:
        match = re.match(r"checks\[([^\]]+)\]|check (\S+) (?:added|removed)$", line)
        if match:
            out.setdefault(match.group(1) or match.group(2), []).append(line)
    return out


def _by_id(checks) -> dict | None:
    """{id: check} of a certificate's checks when every check has a distinct id (else None: an older
    certificate, compared by position)."""
    if not isinstance(checks, list) or not all(
        isinstance(c, dict) and isinstance(c.get("id"), str) for c in checks
    ):
        return None
    by_id = {c["id"]: c for c in checks}
    return by_id if len(by_id) == len(checks) else None


def precision_entry(path: str, why: str, *, rel: float = 0.0, abs: float = 0.0) -> dict:
    """One declaration of a certificate's `precision` list: the numbers at `path` (a pattern: `*`
    matches within one key, `[*]` any list index, e.g. `quantities.optimum[*].mu`) are known to
    |error| <= abs + rel |value|, for the reason `why` (an optimizer's tolerance, a stated error, a
    work count). `verify --check` compares them at that precision, so a re-run on another CPU whose
    digits below the stated error differ reproduces the certificate."""
    if not (rel >= 0 and abs >= 0 and (rel > 0 or abs > 0)) or not why:
        raise ValueError(f"precision for {path!r} needs rel or abs > 0 and a reason")
    return {"path": path, "rel": float(rel), "abs": float(abs), "why": why}


def path_pattern(path: str) -> re.Pattern:
    """The regular expression of a `precision` path: `*` is any text within one key, `[*]` any list
    index or check id; a match also covers everything below the path (`a.b` covers `a.b[0]` and
    `a.b.c`)."""
    text = re.escape(path).replace(r"\[\*\]", r"\[[^\]]+\]").replace(r"\*", r"[^.\[]*")
    return re.compile(text + r"(?:$|[.\[].*)")


def _precision_rules(a: dict, b: dict) -> list[tuple[re.Pattern, float, float]]:
    merged: dict[str, list[float]] = {}
    for cert in (a, b):
        for e in cert.get("precision") or []:
            rel, tol = merged.setdefault(e["path"], [0.0, 0.0])
            merged[e["path"]] = [max(rel, float(e.get("rel", 0))), max(tol, float(e.get("abs", 0)))]
    return [(path_pattern(p), rel, tol) for p, (rel, tol) in merged.items()]


def _tolerance(rules, where: str) -> tuple[float, float] | None:
    found = [(rel, tol) for pat, rel, tol in rules if pat.fullmatch(where)]
    if not found:
        return None
    return max(r for r, _ in found), max(t for _, t in found)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _close(a: float, b: float, tol: tuple[float, float] | None = None) -> bool:
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    if tol is not None and abs(a - b) <= tol[1] + tol[0] * scale:
        return True
    if scale < 10 * NOISE_FLOOR:  # one side written as 0, the other just above it
        return True
    return abs(a - b) <= scale * 10.0 ** (1 - SIGNIFICANT_DIGITS) * 1.0000001


def _same_text(a: str, b: str, tol: tuple[float, float] | None = None) -> bool:
    """Equal texts up to the numbers in them, which are compared like numbers (printed with %.3g, a
    number agrees to its printed digits: 1e-2 relative), or within a declared precision."""
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
        fx, fy = float(x), float(y)
        scale = max(abs(fx), abs(fy))
        if tol is not None and abs(fx - fy) <= tol[1] + tol[0] * scale:
            continue
        if fx != fy and scale >= 10 * NOISE_FLOOR and abs(fx - fy) > 1e-2 * scale:
            return False
    return True


def _short(x) -> str:
    text = json.dumps(x)
    return text if len(text) <= 40 else text[:37] + "..."
