"""Code generation: derived SymPy expressions -> `numerics/kernels/_generated.py`.

The emitted file is deterministic: a header naming its sources, a SHA-256 of the emitted
definitions (no timestamps, no versions), and one NumPy function per `KernelSpec`, in the order of
the kernels' names, so that where a spec is declared never changes the file (nothing
hand-written: compositions over a variable number of parts, such as the softmax over mixture
components, are algorithms in numerics/ calling these kernels). `softlin derive --check`
re-emits in memory and diffs against the committed file.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
from pathlib import Path

import sympy as sp
from sympy.printing.numpy import SciPyPrinter

from .catalogue import kernel_specs
from .kernel_spec import KernelSpec

# Found through the import system, so the same code serves the checkout (numerics/ at the top of
# the repository) and an installed wheel (softlin/numerics/ in site-packages); find_spec only
# locates the kernels package (importing only the empty softlin.numerics), never the kernels.
GENERATED_PATH = (
    Path(importlib.util.find_spec("softlin.numerics.kernels").origin).parent / "_generated.py"
)
DERIVATION_DIR = Path(__file__).resolve().parent
FIX_COMMAND = "softlin derive"


class KernelPrinter(SciPyPrinter):
    """SciPy printer plus the matrix-expression nodes our derivations use."""

    def _print_Trace(self, expr):
        return f"numpy.trace({self._print(expr.arg)})"

    def _print_HadamardPower(self, expr):
        return f"numpy.power({self._print(expr.base)}, {self._print(expr.exp)})"

    def _print_ElementwiseApplyFunction(self, expr):
        # f applied entrywise: the Lambda's body is printed with NumPy ufuncs, so it maps arrays.
        f = expr.function
        variables = ", ".join(self._print(v) for v in f.variables)
        return f"(lambda {variables}: {self._print(f.expr)})({self._print(expr.expr)})"

    def _print_Identity(self, expr):
        return f"numpy.eye({self._print(expr.rows)})"

    # Symbolic dimensions (d, k, n) print as the shape of an argument that carries them.
    dimension_names: dict = {}

    def _print_Symbol(self, expr):
        if expr in self.dimension_names:
            return self.dimension_names[expr]
        return super()._print_Symbol(expr)


def _dimension_names(args) -> dict:
    names = {}
    for arg in args:
        for axis, dim in enumerate(getattr(arg, "shape", ())):
            if isinstance(dim, sp.Symbol) and dim not in names:
                names[dim] = f"{arg}.shape[{axis}]"
    return names


def input_hash() -> str:
    """SHA-256 over the derivation modules' source (sorted by name): the inputs of the proofs and of
    the derivation report (the kernels carry their own hash, `kernel_hash`)."""
    h = hashlib.sha256()
    for path in sorted(DERIVATION_DIR.glob("*.py")):
        h.update(path.name.encode())
        h.update(b"\0")
        h.update(path.read_bytes().replace(b"\r\n", b"\n"))
        h.update(b"\0")
    return h.hexdigest()


def _function(spec: KernelSpec, printer: KernelPrinter) -> str:
    names = [str(a) for a in spec.args]
    printer.dimension_names = _dimension_names(spec.args)
    body = printer.doprint(spec.expr)
    arg_doc = "\n".join(f"        {n}: {shape}" for n, shape in zip(names, spec.shapes))
    needs_errstate = spec.expr.has(sp.Piecewise)
    lines = [
        f"def {spec.name}({', '.join(names)}):",
        f'    """{spec.doc}',
        "",
        f"    From derivations/{spec.source}.py. Arguments:",
        arg_doc,
        f"    Returns: {spec.returns}.",
        '    """',
    ]
    if needs_errstate:
        # numpy.select evaluates every branch; the discarded one may divide by zero.
        lines += [
            "    with numpy.errstate(divide='ignore', invalid='ignore', over='ignore'):",
            f"        return numpy.asarray({body})",
        ]
    else:
        lines.append(f"    return {body}")
    return "\n".join(lines) + "\n"


def kernel_hash(definitions: str) -> str:
    """SHA-256 of the emitted definitions (imports, KERNELS and every function): what the numbers
    depend on. Certificates record it (provenance.kernels_input_hash), so an edit in derivations/
    that changes no kernel (a comment, a proof) changes no certificate."""
    return hashlib.sha256(definitions.encode()).hexdigest()


def generated_source() -> str:
    """The full text of `_generated.py`."""
    printer = KernelPrinter({"fully_qualified_modules": True, "strict": True})
    specs = sorted(kernel_specs(), key=lambda spec: spec.name)
    functions = [_function(spec, printer) for spec in specs]
    sources = sorted({spec.source for spec in specs})
    modules = sorted(printer.module_imports) if printer.module_imports else []
    imports = sorted({"numpy"} | {m.split(".")[0] if m != "scipy.special" else m for m in modules})
    header = [
        '"""Numeric kernels generated by `softlin derive` from '
        f'derivations/{{{",".join(sources)}}}.py, do not edit.',
        "",
        "Regenerate with `softlin derive`; `softlin derive --check` fails when this file is stale.",
        "INPUT_HASH is the SHA-256 of everything after the line that defines it.",
        '"""',
        "",
    ]
    names = [spec.name for spec in specs]
    definitions = (
        "\n".join([*(f"import {m}" for m in imports), "", f"KERNELS = {tuple(names)!r}", ""])
        + "\n"
        + "\n\n".join(functions)
    )
    return "\n".join(header) + "\n" + f'INPUT_HASH = "{kernel_hash(definitions)}"\n' + definitions


def write(path: Path = GENERATED_PATH) -> Path:
    path.write_text(generated_source())
    return path


def staleness_diff(path: Path = GENERATED_PATH) -> str:
    """Unified diff from the committed file to a fresh emission ('' when up to date)."""
    fresh = generated_source()
    current = path.read_text() if path.exists() else ""
    if current == fresh:
        return ""
    return "".join(
        difflib.unified_diff(
            current.splitlines(True),
            fresh.splitlines(True),
            fromfile=f"{path} (committed)",
            tofile=f"{path} (fresh emission)",
        )
    )
