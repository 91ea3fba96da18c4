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
The renderer (softlin/render/html.py) re-validates what it reads and falls back to the LaTeX source when a
formula has no MathML.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import sympy as sp
from sympy.printing.mathml import mathml as _sympy_mathml

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


def to_mathml(expr: sp.Basic) -> str:
    """SymPy's presentation MathML of `expr` (a fragment, without the <math> element)."""
    return numeric_entities(_sympy_mathml(expr, printer="presentation"))


def mi(name: str) -> str:
    return f"<mi>{html.escape(name)}</mi>"


def mo(op: str) -> str:
    return f"<mo>{html.escape(op)}</mo>"


def fenced(*parts, open_: str = "(", close: str = ")") -> str:
    """`open_ parts close` as one <mrow>, so the fences stretch to their contents only (a fence left
    loose in a row stretches to the tallest thing in the whole row)."""
    return f"<mrow>{mo(open_)}{''.join(p if isinstance(p, str) else to_mathml(p) for p in parts)}{mo(close)}</mrow>"


# T[mu](z), the paper's notation for the limit operator applied to mu at the query z.
T_MU_Z = "<mrow><mi>T</mi>" + fenced(mi("\u03bc"), open_="[", close="]") + fenced(mi("z")) + "</mrow>"


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
