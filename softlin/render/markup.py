"""Maths in claim statements and hypotheses: `$...$` spans of ASCII maths typeset as MathML (HTML
pages) or LaTeX (Markdown pages).

The claims write their statements in plain text with the maths between dollars, in the notation of
docs/paper.md:

    "$T[mu](z) = V (m + Gamma U z)$ for $mu = N(m, Gamma)$, $lambda_max(U^T Gamma U Sigma_q) < 1/2$"

Inside a span: identifiers (Greek names such as `Gamma`, `mu`, `lambda` become letters; `sum`,
`grad`, `yhat` and `inf` (infinity, as in R_inf) become their symbols; the function words exp, log,
ln, tr, det, min, max, sup, softmax stay upright), numbers, operators (`<=`,
`>=`, `!=`, `->`, `~` become their symbols; a product is a space), `_x` / `_{...}`
subscripts and `^x` / `^{...}` / `^(...)` superscripts, `{...}` groups and `sqrt(...)` radicals.
A span that does not parse (an unbalanced brace) is a ValueError naming it: the claim's text is
fixed, not the page. Text outside the spans is escaped as usual; a text without `$` is unchanged.
"""

from __future__ import annotations

import html
import re

GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau "
    "upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
_LETTERS = dict(zip(GREEK, "αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΥΦΨΩ"))
WORDS = {"exp", "log", "ln", "tr", "det", "min", "max", "sup", "softmax", "lim", "Cov", "Var"}
# words that are symbols: (MathML element, text, LaTeX); "inf" is the paper's infinity (R_inf,
# theta_inf)
SYMBOLS = {
    "sum": ("mo", "∑", r"\sum"),
    "inf": ("mi", "∞", r"\infty"),
    "yhat": ("mi", "ŷ", r"\hat{y}"),
    "grad": ("mo", "∇", r"\nabla"),
}
OPERATORS = {
    "<=": ("≤", r"\le"),
    ">=": ("≥", r"\ge"),
    "!=": ("≠", r"\ne"),
    "->": ("→", r"\to"),
    "~": ("∼", r"\sim"),
    "*": ("∗", "*"),
    "||": ("‖", r"\|"),
    "'": ("′", "'"),
}
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<id>[A-Za-z][A-Za-z0-9]*)"
    r"|(?P<op><=|>=|!=|->|\|\||[^\sA-Za-z0-9]))"
)
_SPAN = re.compile(r"\$([^$]+)\$")


def _tokens(src: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(src.rstrip()):
        m = _TOKEN.match(src, pos)
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _parse(tokens, i, close=None):
    """Items up to `close` (or the end): (kind, text, sub, sup) with sub/sup themselves item
    lists."""
    items = []
    while i < len(tokens):
        kind, text = tokens[i]
        if text == close:
            return items, i + 1
        if text == "}":
            raise ValueError("unbalanced '}'")
        if text in "_^" and kind == "op":
            if not items:
                raise ValueError(f"{text!r} with nothing before it")
            script, i = _atom(tokens, i + 1)
            k, t, sub, sup = items[-1]
            items[-1] = (k, t, script, sup) if text == "_" else (k, t, sub, script)
            continue
        if text == "{":
            group, i = _parse(tokens, i + 1, "}")
            items.append(("group", group, None, None))
            continue
        if text == "'" and items and items[-1][0] == "id" and items[-1][2:] == (None, None):
            items[-1] = (
                "id",
                items[-1][1] + "'",
                None,
                None,
            )  # z' is one identifier: z'^T raises T
            i += 1
            continue
        if text == "sqrt" and i + 1 < len(tokens) and tokens[i + 1][1] == "(":
            group, i = _atom(tokens, i + 1)  # sqrt(...): a radical over the parentheses
            items.append(("sqrt", group, None, None))
            continue
        items.append((kind, text, None, None))
        i += 1
    if close is not None:
        raise ValueError(f"missing {close!r}")
    return items, i


def _atom(tokens, i):
    if i >= len(tokens):
        raise ValueError("a script with nothing after it")
    if tokens[i][1] == "{":
        return _parse(tokens, i + 1, "}")
    if tokens[i][1] == "(":  # L^(c_2 / sigma^2): the parentheses only group
        depth = 0
        for j in range(i, len(tokens)):
            depth += {"(": 1, ")": -1}.get(tokens[j][1], 0) if tokens[j][0] == "op" else 0
            if depth == 0:
                return _parse(tokens[i + 1 : j], 0)[0], j + 1
        raise ValueError("missing ')'")
    return [(tokens[i][0], tokens[i][1], None, None)], i + 1


def _mathml_item(item) -> str:
    kind, text, sub, sup = item
    if kind in ("group", "sqrt"):
        base = "<mrow>" + "".join(map(_mathml_item, text)) + "</mrow>"
        base = f"<msqrt>{base}</msqrt>" if kind == "sqrt" else base
    elif kind == "num":
        base = f"<mn>{text}</mn>"
    elif kind == "id" and text in SYMBOLS:
        tag, char, _ = SYMBOLS[text]
        base = f"<{tag}>{char}</{tag}>"
    elif kind == "id":
        # one letter: italic (MathML's default); a word (exp, tr, softmax): upright, also the
        # default
        name = text.rstrip("'")
        base = f"<mi>{_LETTERS.get(name, name)}{'′' * (len(text) - len(name))}</mi>"
    else:
        base = f"<mo>{html.escape(OPERATORS.get(text, (text,))[0])}</mo>"
    if sub is None and sup is None:
        return base
    s = lambda items: "<mrow>" + "".join(_mathml_item(x) for x in items) + "</mrow>"
    if sub is not None and sup is not None:
        return f"<msubsup>{base}{s(sub)}{s(sup)}</msubsup>"
    return f"<msub>{base}{s(sub)}</msub>" if sub is not None else f"<msup>{base}{s(sup)}</msup>"


def _latex_item(item) -> str:
    kind, text, sub, sup = item
    if kind in ("group", "sqrt"):
        base = ("\\sqrt" if kind == "sqrt" else "") + "{" + " ".join(map(_latex_item, text)) + "}"
    elif kind == "id" and text in SYMBOLS:
        base = SYMBOLS[text][2]
    elif kind == "id":
        name = text.rstrip("'")
        base = (
            "\\" + name + text[len(name) :]
            if name in _LETTERS
            else rf"\operatorname{{{name}}}" + text[len(name) :]
            if name in WORDS or len(name) > 1
            else text
        )
    elif kind == "num":
        base = text
    else:
        base = OPERATORS.get(
            text,
            (None, {"{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&"}.get(text, text)),
        )[1]
    s = lambda items: "{" + " ".join(_latex_item(x) for x in items) + "}"
    return (
        base + (f"_{s(sub)}" if sub is not None else "") + (f"^{s(sup)}" if sup is not None else "")
    )


def span_mathml(src: str) -> str:
    items, _ = _parse(_tokens(src), 0)
    return '<math display="inline"><mrow>' + "".join(map(_mathml_item, items)) + "</mrow></math>"


def span_latex(src: str) -> str:
    items, _ = _parse(_tokens(src), 0)
    return " ".join(map(_latex_item, items))


def _convert(text: str, span, plain, where: str) -> str:
    out, pos = [], 0
    for m in _SPAN.finditer(text):
        out.append(plain(text[pos : m.start()]))
        try:
            out.append(span(m.group(1)))
        except ValueError as exc:
            raise ValueError(f"{where}: maths ${m.group(1)}$ does not parse ({exc})") from exc
        pos = m.end()
    return "".join(out) + plain(text[pos:])


def to_html(text: str, where: str = "text") -> str:
    """Escaped text with every `$...$` span as inline MathML."""
    return _convert(str(text), span_mathml, lambda t: html.escape(t, quote=True), where)


def to_markdown(text: str, where: str = "text") -> str:
    """Text with every `$...$` span as `$LaTeX$` (GitHub renders it); `<` escaped outside spans."""
    from .text import md

    return _convert(str(text), lambda s: f"${span_latex(s)}$", md, where)
