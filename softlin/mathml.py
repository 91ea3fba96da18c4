"""Presentation MathML of derived formulas, for certificates (`formulas_mathml`).

A claim stores each derived formula twice: its LaTeX (`formulas`, SymPy's LaTeX printer, read in
the Markdown pages) and its presentation MathML (`formulas_mathml`, SymPy's MathML printer, shown by
browsers natively in the HTML pages: no JavaScript, no fonts or scripts fetched from anywhere).

    from .mathml import T_MU_Z, mathml_formula, mo
    formulas_mathml = {"limit": mathml_formula(T_MU_Z, mo("="), limit_expr)}

`fenced(*parts)` wraps parts in parentheses inside their own <mrow> (the way SymPy prints them).

`mathml_formula(*parts)` joins its parts into one `<math display="block">` element: a SymPy
expression is printed with `sympy.printing.mathml.mathml(expr, printer="presentation")`, a string is
taken as a MathML fragment (for the few pieces SymPy cannot express, e.g. the paper's T[mu](z)).
Named character entities (`&InvisibleTimes;`, which XML does not define) become numeric references,
and the result is parsed as XML, so a malformed fragment raises ValueError here, not in a browser.
The renderer (softlin/render/html.py) re-validates what it reads and falls back to the LaTeX source
when a formula has no MathML.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.mathml import MathMLPresentationPrinter

_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}


def numeric_entities(markup: str) -> str:
    """Replace HTML named character references by numeric ones (XML knows only five names)."""

    def repl(match: re.Match) -> str:
        name = match.group(1)
        if name in _XML_ENTITIES:
            return match.group(0)
        text = html.unescape(match.group(0))
        if text == match.group(0):
            raise ValueError(f"unknown character entity {match.group(0)!r} in MathML")
        return "".join(f"&#{ord(ch)};" for ch in text)

    return _ENTITY.sub(repl, markup)


def _is_quadratic_form(expr) -> bool:
    """tr of a 1 x 1 product (how matrix_ops.scalar writes a^T Gamma a on symbols): shown as the
    product."""
    return getattr(expr.arg, "shape", None) == (1, 1)


# Symbols whose SymPy names are not how the paper writes them: the label noise variance s2 is
# sigma^2 (SymPy would print s with a subscript 2), abar = (1/L) sum_i s_i y_i is a-bar and the loss
# ell is the script l (SymPy's MathML prints both as words).
PAPER_SYMBOLS = {"s2": r"\sigma^{2}", "abar": r"\bar{a}", "ell": r"\ell"}


class _Latex(LatexPrinter):
    """SymPy's LaTeX printer, with the paper's symbols (PAPER_SYMBOLS) and the trace of a 1 x 1
    product shown as the product (a^T Gamma a)."""

    def _print_Symbol(self, expr, style="plain"):
        return PAPER_SYMBOLS.get(expr.name) or super()._print_Symbol(expr, style)

    def _print_Trace(self, expr):
        return self._print(expr.arg) if _is_quadratic_form(expr) else super()._print_Trace(expr)


def to_latex(expr: sp.Basic) -> str:
    return _Latex().doprint(expr)


class _Printer(MathMLPresentationPrinter):
    """SymPy's presentation printer with the notation of the paper where SymPy's own differs:
    the symbols of PAPER_SYMBOLS, a negative matrix product as `-e^q V Gamma a` (SymPy prints
    `(-1) e^q V Gamma a`), Piecewise as a
    brace with "if"/"otherwise" rows (SymPy prints `piecewise((...), ...)`), tr(.) and det(.)."""

    def _el(self, tag: str, text: str | None = None, *children):
        node = self.dom.createElement(tag)
        if text is not None:
            node.appendChild(self.dom.createTextNode(text))
        for child in children:
            node.appendChild(child)
        return node

    def _fenced(self, inner):
        return self._el("mrow", None, self._el("mo", "("), inner, self._el("mo", ")"))

    def _print_Symbol(self, sym, style="plain"):
        if sym.name == "s2":
            return self._el("msup", None, self._el("mi", "\u03c3"), self._el("mn", "2"))
        if sym.name == "abar":
            bar = self._el("mover", None, self._el("mi", "a"), self._el("mo", "\u00af"))
            bar.setAttribute("accent", "true")
            return bar
        if sym.name == "ell":
            return self._el("mi", "\u2113")
        return super()._print_Symbol(sym, style)

    def _print_Pow(self, expr):
        # sigma^2 to a power is fenced: (sigma^2)^2, not sigma^2^2
        if (
            isinstance(expr.base, sp.Symbol)
            and expr.base.name == "s2"
            and expr.exp.is_Integer
            and expr.exp > 1
        ):
            return self._el(
                "msup", None, self._fenced(self._print(expr.base)), self._print(expr.exp)
            )
        return super()._print_Pow(expr)

    def _print_MatMul(self, expr):
        coeff, matrices = expr.as_coeff_matrices()
        if coeff.could_extract_minus_sign():
            rest = sp.MatMul(-coeff, *matrices) if coeff != -1 else sp.MatMul(*matrices)
            inner = (
                super()._print_MatMul(rest) if isinstance(rest, sp.MatMul) else self._print(rest)
            )
            return self._el("mrow", None, self._el("mo", "-"), inner)
        return super()._print_MatMul(expr)

    def _print_Function(self, expr):
        """An undefined function (b_1, kappa, lambda_max) named like a symbol: subscripts, Greek."""
        if not isinstance(expr, AppliedUndef):
            return super()._print_Function(expr)
        args = self._el("mrow")
        for i, arg in enumerate(expr.args):
            if i:
                args.appendChild(self._el("mo", ","))
            args.appendChild(self._print(arg))
        return self._el(
            "mrow",
            None,
            self._print(sp.Symbol(expr.func.__name__)),
            self._el("mo", "&ApplyFunction;"),
            self._fenced(args),
        )

    def _print_Relational(self, expr):
        # SymPy's own writes a bare "<" into the markup (its text nodes are not escaped)
        op = {"==": "=", "<": "&lt;", ">": "&gt;", "<=": "\u2264", ">=": "\u2265", "!=": "\u2260"}[
            expr.rel_op
        ]
        return self._el(
            "mrow", None, self._print(expr.lhs), self._el("mo", op), self._print(expr.rhs)
        )

    def _print_Subs(self, expr):
        """[f]_{x = v}: the expression evaluated at a point (SymPy's own prints
        subs(f, (x), (v)))."""
        body = self._el(
            "mrow", None, self._el("mo", "["), self._print(expr.expr), self._el("mo", "]")
        )
        at = self._el("mrow")
        for i, (var, point) in enumerate(zip(expr.variables, expr.point)):
            if i:
                at.appendChild(self._el("mo", ","))
            at.appendChild(
                self._el("mrow", None, self._print(var), self._el("mo", "="), self._print(point))
            )
        return self._el("msub", None, body, at)

    def _print_OneMatrix(self, expr):
        return self._el("mn", "\U0001d7d9")  # SymPy's own drops the entity's ";"

    def _print_HadamardProduct(self, expr):
        row = self._el("mrow")
        for i, arg in enumerate(expr.args):
            if i:
                row.appendChild(self._el("mo", "\u2218"))
            row.appendChild(self._fenced(self._print(arg)) if arg.is_MatAdd else self._print(arg))
        return row

    def _print_HadamardPower(self, expr):
        base = self._print(expr.base)
        if not isinstance(expr.base, sp.MatrixSymbol):
            base = self._fenced(base)
        exp = self._el("mrow", None, self._el("mo", "\u2218"), self._print(expr.exp))
        return self._el("msup", None, base, exp)

    def _print_ElementwiseApplyFunction(self, expr):
        f = expr.function
        name = (
            self._el("mi", f.expr.func.__name__)
            if isinstance(f, sp.Lambda) and len(f.variables) == 1 and f.expr.args == f.variables
            else self._print(f)
        )
        return self._el(
            "mrow",
            None,
            name,
            self._el("mo", "&ApplyFunction;"),
            self._fenced(self._print(expr.expr)),
        )

    def _print_Trace(self, expr):
        if _is_quadratic_form(expr):
            return self._print(expr.arg)
        return self._el(
            "mrow",
            None,
            self._el("mi", "tr"),
            self._el("mo", "&ApplyFunction;"),
            self._fenced(self._print(expr.arg)),
        )

    def _print_Determinant(self, expr):
        return self._el(
            "mrow",
            None,
            self._el("mi", "det"),
            self._el("mo", "&ApplyFunction;"),
            self._fenced(self._print(expr.arg)),
        )

    def _print_Piecewise(self, expr):
        table = self._el("mtable")
        table.setAttribute("columnalign", "left left")
        for value, cond in expr.args:
            when = (
                self._el("mtext", "otherwise")
                if cond is sp.true
                else self._el("mrow", None, self._el("mtext", "if\u2009"), self._print(cond))
            )
            table.appendChild(
                self._el(
                    "mtr",
                    None,
                    self._el("mtd", None, self._print(value)),
                    self._el("mtd", None, when),
                )
            )
        return self._el("mrow", None, self._el("mo", "{"), table)


def to_mathml(expr: sp.Basic) -> str:
    """Presentation MathML of `expr` (a fragment, without the <math> element), printed by SymPy's
    presentation printer with the paper's notation for signs, Piecewise, tr and det (`_Printer`)."""
    return numeric_entities(_Printer().doprint(expr))


def mi(name: str) -> str:
    return f"<mi>{html.escape(name)}</mi>"


def mtext(words: str) -> str:
    return f"<mtext>{html.escape(words)}</mtext>"


def mo(op: str) -> str:
    return f"<mo>{html.escape(op)}</mo>"


def fenced(*parts, open_: str = "(", close: str = ")") -> str:
    """`open_ parts close` as one <mrow>, so the fences stretch to their contents only (a fence left
    loose in a row stretches to the tallest thing in the whole row)."""
    return (
        f"<mrow>{mo(open_)}"
        f"{''.join(p if isinstance(p, str) else to_mathml(p) for p in parts)}"
        f"{mo(close)}</mrow>"
    )


# T[mu](z), the paper's notation for the limit operator applied to mu at the query z.
T_MU_Z = (
    "<mrow><mi>T</mi>" + fenced(mi("\u03bc"), open_="[", close="]") + fenced(mi("z")) + "</mrow>"
)


def mathml_formula(*parts, display: str = "block") -> str:
    """One <math> element from SymPy expressions and MathML fragments (see the module docstring)."""
    if display not in ("block", "inline"):
        raise ValueError(f"display {display!r} is not 'block' or 'inline'")
    body = "".join(p if isinstance(p, str) else to_mathml(p) for p in parts)
    markup = f'<math display="{display}"><mrow>{numeric_entities(body)}</mrow></math>'
    try:
        ET.fromstring(markup)
    except ET.ParseError as exc:
        raise ValueError(f"formula MathML is not well-formed ({exc}): {markup[:200]}") from exc
    return markup


_RELATIONS = {"=": ("=", "="), "<=": (r"\le", "\u2264"), "<": ("<", "<"), ">=": (r"\ge", "\u2265")}


def _relation(rel: str) -> tuple[str, str]:
    try:
        return _RELATIONS[rel]
    except KeyError:
        raise ValueError(f"relation {rel!r} is not one of {sorted(_RELATIONS)}") from None


def display_latex(display) -> str:
    """LaTeX of a derivations.display.Display: `lhs rel rhs, where ...` and its note as text."""
    tex = f"{to_latex(display.lhs)} {_relation(display.relation)[0]} {to_latex(display.rhs)}"
    for lhs, rel, rhs in display.where:
        tex += rf",\quad {to_latex(lhs)} {_relation(rel)[0]} {to_latex(rhs)}"
    if display.note:
        tex += (
            r"\qquad\text{("
            + display.note.replace("\\", "/").replace("_", r"\_").replace("^", r"\^{}")
            + ")}"
        )
    return tex


def _row(*parts) -> str:
    return (
        "<mtr><mtd><mrow>"
        + "".join(p if isinstance(p, str) else to_mathml(p) for p in parts)
        + "</mrow></mtd></mtr>"
    )


def display_mathml(display) -> str:
    """Presentation MathML of a Display, every side printed from its SymPy object (`to_mathml`): the
    formula, then its definitions on one line and its note on another (left-aligned rows, so a
    long display wraps into lines instead of widening the page)."""
    rows = [_row(display.lhs, mo(_relation(display.relation)[1]), display.rhs)]
    if display.where:
        parts = [mtext("where"), "<mspace width='0.6em'/>"]
        for i, (lhs, rel, rhs) in enumerate(display.where):
            parts += ([mo(","), "<mspace width='1em'/>"] if i else []) + [
                lhs,
                mo(_relation(rel)[1]),
                rhs,
            ]
        rows.append(_row(*parts))
    if display.note:
        rows.append(_row(f'<mstyle mathsize="0.8em">{mtext(display.note)}</mstyle>'))
    if len(rows) == 1:
        return mathml_formula(rows[0].removeprefix("<mtr><mtd>").removesuffix("</mtd></mtr>"))
    return mathml_formula('<mtable columnalign="left">' + "".join(rows) + "</mtable>")


def formula_dicts(displays: dict) -> tuple[dict, dict]:
    """({name: LaTeX}, {name: MathML}) of named Displays, for a certificate's formulas fields."""
    return (
        {n: display_latex(d) for n, d in displays.items()},
        {n: display_mathml(d) for n, d in displays.items()},
    )
