"""Numbers quoted in a results NOTES.md, each tied to the run's JSON and checked against it.

A ``NOTES.md`` under ``docs/results/NAME/`` explains a run in prose and quotes its numbers. To keep
the prose honest, every number of ours is followed by a *marker*, an HTML comment (invisible in the
rendered page) that says where the number comes from::

    <!--json table3-vs-paper.json -->
    KREĬN scores 25.66<!--= rows["data set"=pima,kernel=SIGMOID].ours.0 --> against …
    rank 100: 0.026<!--= figure2.json:rows[sampler="kmeans++",landmarks=k,rank=100].error -->,
    40×<!--= seconds.accpm.50 / seconds.projected_gradient.50 --> faster

The marker's body is an expression: numbers, ``+ - * /``, parentheses, the functions ``mean``,
``median``, ``min``, ``max``, ``sum``, ``len`` and ``abs``, and *references* ``FILE:PATH`` into a
JSON file beside the NOTES.md or in a folder below it (``quick/run.json:rows.0.error``).
``<!--json FILE -->`` anywhere in the notes names the default file, after which a reference may omit
``FILE:``. A path is a dot-separated list of keys, quoted with ``"…"`` unless they are plain words or
integers:

- an integer indexes a list, and ``*`` takes every element of one (``mean(gaps.*.300)``: the mean
  over runs of each run's 300th value);
- ``[key=value,…]`` picks the one record of a list whose fields have those values, and
  ``*[key=value,…]`` every such record (``sum(rows*[method=X].seconds)``);
- an integer after a string picks the k-th number written in it (``"32.00 (± 9.17)"``: 0 is 32.00,
  1 is 9.17).

The quoted number (``−7.8·10⁴``, ``1e-6``, ``0.0050``, ``40`` …, optionally followed by a unit
``%``, ``×`` or ``s``) must equal the expression's value rounded to the number of digits quoted.

A marker may also state the paper's cell it is compared with, ``<!--= PATH ~ 8.99 ± 1.96 -->``:
:func:`paper_cells` collects these for the fidelity table (``krein results``), which counts the
cells whose value is inside the paper's mean ± 1 std. :func:`check_notes` checks every marker of a
NOTES.md and returns the disagreements; ``tests/test_results_notes.py`` runs it on every NOTES.md
that uses markers.
"""

from __future__ import annotations

import json
import operator
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from ._framework import write_atomic

__all__ = [
    "Quote",
    "check_notes",
    "evaluate",
    "paper_cells",
    "parse_notes",
    "quoted_value",
    "refresh_notes",
    "rewritten_number",
]

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_NUMBER = (
    r"(?P<number>[−-]?10[⁻−]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|[−-]?\d+(?:\.\d+)?"
    r"(?:(?:·|×|\*)10(?:\^)?[⁻−-]?[⁰¹²³⁴⁵⁶⁷⁸⁹\d]+|e[+−-]?\d+)?)"
)
_MARKER = re.compile(_NUMBER + r"\s?(?P<unit>%|×|x|s|ms)?\s?<!--=(?P<body>.*?)-->", re.S)
_BARE_MARKER = re.compile(r"<!--=(.*?)-->", re.S)
_DEFAULT_FILE = re.compile(r"<!--json\s+(?P<file>\S+)\s*-->")
_EVALUATION_ERRORS = (
    ValueError,
    TypeError,
    OSError,
    IndexError,
    ZeroDivisionError,
    statistics.StatisticsError,
)
_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_FUNCTIONS = {
    "mean": statistics.fmean,
    "median": statistics.median,
    "min": min,
    "max": max,
    "sum": sum,
    "len": len,
    "abs": abs,
}


@dataclass(frozen=True)
class Quote:
    """One marked number of a NOTES.md.

    Attributes
    ----------
    text : str
        The number as written (``"−7.8·10⁴"``).
    expression : str
        The marker's expression.
    paper : tuple of float or None
        ``(mean, std)`` of the paper's cell it is compared with, or None.
    line : int
        1-based line of the NOTES.md.
    """

    text: str
    expression: str
    paper: tuple[float, float] | None
    line: int


def quoted_value(text):
    """``(value, tolerance)`` of a number as written: ``"0.0050"`` → ``(0.005, 5e-5)``.

    The tolerance is half a unit of the last digit quoted, so a number agrees with a value when it
    is that value correctly rounded. The trailing zeros of an integer are not significant (``"1800"``
    → ``(1800.0, 50.0)``); write ``1800.0`` or a marker on a value rounded otherwise to mean more.
    """
    text = text.replace("−", "-")
    power_of_ten = re.fullmatch(r"(-?)10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if power_of_ten:  # 10⁴: a power of ten, exact
        sign, power = power_of_ten.groups()
        return float(f"{sign}1e{power.translate(_SUPERSCRIPTS)}"), 0.0
    match = re.fullmatch(r"(-?\d+(?:\.(\d+))?)(?:(?:·|×|\*)10\^?([-\d⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)|e([+-]?\d+))?", text)
    if match is None:
        raise ValueError(f"Cannot read the number {text!r}.")
    mantissa, decimals, power, exponent = match.groups()
    scale = 0
    if power is not None:
        scale = int(power.translate(_SUPERSCRIPTS))
    elif exponent is not None:
        scale = int(exponent)
    if decimals:
        digits = len(decimals)
    else:  # the trailing zeros of an integer are not significant: 1800 is 1.8·10³
        integer = mantissa.lstrip("-")
        digits = len(integer.rstrip("0")) - len(integer) if integer.strip("0") else 0
    return float(mantissa) * 10.0**scale, 0.5 * 10.0 ** (scale - digits)


def parse_notes(text):
    """The :class:`Quote` of every marker in ``text`` and the default JSON file (or None).

    Raises ValueError for a marker that does not follow a number.
    """
    default = _DEFAULT_FILE.search(text)
    quotes = []
    found = set()
    for match in _MARKER.finditer(text):
        body = match["body"]
        paper = None
        if "~" in body:
            body, _, cell = body.partition("~")
            numbers = re.findall(r"[−-]?\d+(?:\.\d+)?", cell)
            if "±" not in cell or len(numbers) != 2:
                raise ValueError(f"Paper cell {cell.strip()!r} is not written as 'MEAN ± STD'.")
            paper = tuple(float(x.replace("−", "-")) for x in numbers)
        line = text.count("\n", 0, match.start()) + 1
        quotes.append(Quote(match["number"], body.strip(), paper, line))
        found.add(match.start("body"))
    for match in _BARE_MARKER.finditer(text):
        if match.start(1) not in found:
            line = text.count("\n", 0, match.start()) + 1
            raise ValueError(f"line {line}: the marker {match[0]!r} does not follow a number.")
    return quotes, (default["file"] if default else None)


class _Parser:
    """Recursive-descent evaluation of one marker expression (no ``eval``)."""

    _TOKEN = re.compile(
        r"\s*(?:(?P<file>(?<![\w.])(?:[\w-]+/)*[\w.-]+\.json):"  # a file in a folder below: quick/run.json
        r"|(?P<number>\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w\"]))"
        r"|(?P<word>[A-Za-z_][\w]*|\d+)|(?P<string>\"[^\"]*\")|(?P<op>[-+*/().,\[\]=]))"
    )

    def __init__(self, expression, folder, default_file, cache):
        self.tokens = []
        position = 0
        expression = expression.strip()
        while position < len(expression):
            match = self._TOKEN.match(expression, position)
            if match is None or match.end() == position:
                raise ValueError(f"Cannot read {expression[position:]!r} in the marker {expression!r}.")
            kind = match.lastgroup
            value = match[kind]
            if kind == "string":
                kind, value = "word", value[1:-1]
            self.tokens.append((kind, value))
            position = match.end()
            while position < len(expression) and expression[position].isspace():
                position += 1
        self.position = 0
        self.expression = expression
        self.folder = folder
        self.default_file = default_file
        self.cache = cache

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else (None, None)

    def take(self, value=None):
        token = self.peek()
        if token[0] is None or (value is not None and token[1] != value):
            raise ValueError(f"Expected {value or 'more'} in the marker {self.expression!r}.")
        self.position += 1
        return token

    def parse(self):
        value = self.sum()
        if self.position != len(self.tokens):
            raise ValueError(f"Unexpected {self.peek()[1]!r} in the marker {self.expression!r}.")
        return value

    def chain(self, operand, operators):
        """``operand (op operand)*`` for the left-associative ``operators``."""
        value = operand()
        while self.peek()[0] == "op" and self.peek()[1] in operators:
            apply = _OPERATORS[self.take()[1]]
            value = apply(value, operand())
        return value

    def sum(self):
        return self.chain(self.product, "+-")

    def product(self):
        return self.chain(self.factor, "*/")

    def factor(self):
        kind, value = self.peek()
        if (kind, value) == ("op", "-"):
            self.take()
            return -self.factor()
        if (kind, value) == ("op", "("):
            self.take()
            inner = self.sum()
            self.take(")")
            return inner
        if kind == "number":
            self.take()
            return float(value)
        if kind == "word" and value in _FUNCTIONS and self.tokens[self.position + 1 :][:1] == [("op", "(")]:
            self.take()
            self.take("(")
            argument = self.sum()
            self.take(")")
            return _FUNCTIONS[value](argument)
        return self.reference()

    def reference(self):
        kind, value = self.peek()
        file = self.default_file
        if kind == "file":
            file = self.take()[1]
        if file is None:
            raise ValueError(f"No JSON file for the marker {self.expression!r} (write FILE:PATH).")
        path = self.folder / file
        if path not in self.cache:
            self.cache[path] = json.loads(path.read_text())
        node = self.cache[path]
        trail = file
        fanned = False
        while True:
            kind, key = self.take()
            if (kind, key) == ("op", "*"):  # every element: later steps apply to each
                if not isinstance(node, list):
                    raise ValueError(f"{trail} is not a list; '*' needs one.")
                fanned, node = True, node
            elif kind != "word" and not (kind == "number" and key.isdigit()):
                raise ValueError(f"Expected a key after {trail!r} in the marker {self.expression!r}.")
            elif fanned:
                node = [_step(item, key, trail) for item in node]
            else:
                node = _step(node, key, trail)
            trail += f".{key}"
            every = self.peek() == ("op", "*") and self.tokens[self.position + 1 :][:1] == [("op", "[")]
            if every:  # rows*[method=X]: every matching record
                self.take()
            if self.peek() == ("op", "["):
                self.take()
                selector = {}
                while True:
                    field = self.take()[1]
                    self.take("=")
                    value = self.take()[1]
                    while self.peek()[1] not in (",", "]", None):  # an unquoted value such as DELTA-GAUSS
                        value += self.take()[1]
                    selector[field] = value
                    if self.take()[1] == "]":
                        break
                if fanned:
                    raise ValueError(f"A selector cannot follow '*' in the marker {self.expression!r}.")
                node = _select(node, selector, trail, every)
                fanned = every
                trail += str(selector)
            if self.peek() != ("op", "."):
                break
            self.take()
        if isinstance(node, list):
            return [x if isinstance(x, str) else float(x) for x in node]
        if isinstance(node, str):
            raise ValueError(f"{trail} is the text {node!r}; add the index of the number wanted.")
        if not isinstance(node, int | float):
            raise ValueError(f"{trail} is not a number.")
        return float(node)


def _step(node, key, trail):
    if isinstance(node, dict):
        if key not in node:
            raise ValueError(f"{trail} has no key {key!r} (keys: {', '.join(map(str, node))[:200]}).")
        return node[key]
    if isinstance(node, list) and key.isdigit():
        return node[int(key)]
    if isinstance(node, str) and key.isdigit():
        numbers = re.findall(r"[−-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?", node)
        return float(numbers[int(key)].replace("−", "-"))
    raise ValueError(f"Cannot take {key!r} of {trail}.")


def _select(node, selector, trail, every=False):
    if not isinstance(node, list):
        raise ValueError(f"{trail} is not a list of records.")
    hits = [row for row in node if all(str(row.get(k)) == v for k, v in selector.items())]
    if every:
        if not hits:
            raise ValueError(f"{trail}*[{selector}] matches no record.")
        return hits
    if len(hits) != 1:
        raise ValueError(f"{trail}[{selector}] matches {len(hits)} records, not one.")
    return hits[0]


def evaluate(expression, folder, default_file=None, cache=None):
    """The value of a marker expression over the JSON files in ``folder``."""
    value = _Parser(expression, Path(folder), default_file, {} if cache is None else cache).parse()
    if isinstance(value, list):
        raise ValueError(f"The marker {expression!r} is a list; reduce it (mean, max, ...).")
    return value


def check_notes(path):
    """Disagreements between the marked numbers of the NOTES.md at ``path`` and its JSON files.

    Returns a list of messages, one per marker whose number is not its value correctly rounded
    (an integer value, such as a count, quoted as an integer must equal it) or whose expression
    cannot be evaluated; an empty list when every marked number agrees.
    """
    path = Path(path)
    quotes, default = parse_notes(path.read_text())
    cache = {}
    problems = []
    for quote in quotes:
        try:
            value = evaluate(quote.expression, path.parent, default, cache)
        except _EVALUATION_ERRORS as error:
            problems.append(f"{path}:{quote.line}: {quote.text}: {error}")
            continue
        number, tolerance = quoted_value(quote.text)
        if float(value).is_integer() and float(number).is_integer() and "." not in quote.text:
            tolerance = 0.0  # a count quoted as an integer is exact: "of 50" is not 48
        if abs(number - value) > tolerance * (1 + 1e-9):
            problems.append(
                f"{path}:{quote.line}: the notes say {quote.text}, the JSON gives {value:.6g} "
                f"({quote.expression})"
            )
    return problems


def rewritten_number(text, value):
    """``value`` written as ``text`` is: the same decimals, sign character and notation.

    Plain decimals (``"0.50"``), integers (``"45"``; ``"1300"`` stays rounded to hundreds, as
    :func:`quoted_value` reads it) and e-notation (``"1e-4"``, ``"2.5e-3"``) are rewritten; for a
    number in ``·10⁴`` notation the result is None (left for the author to edit).
    """
    minus = "−" if "−" in text else "-"
    plain = text.replace("−", "-")
    match = re.fullmatch(r"-?\d+(?:\.(\d+))?(?:e([+-]?\d+))?", plain)
    if match is None:
        return None
    decimals = len(match[1] or "")
    digits = plain.lstrip("-")
    if match[1] is None and match[2] is None and digits.strip("0"):  # 1300: rounded to hundreds
        zeros = len(digits) - len(digits.rstrip("0"))
        written = f"{round(value / 10**zeros) * 10**zeros:d}"
    elif match[2] is None:
        written = f"{value:.{decimals}f}"
    else:
        mantissa, exponent = f"{value:.{decimals}e}".split("e")
        written = f"{mantissa}e{int(exponent)}"
    if float(written) == 0.0:
        written = written.lstrip("-")  # no "-0.00"
    return written.replace("-", minus)


def refresh_notes(path):
    """Rewrite every marked number of the NOTES.md at ``path`` from its JSON, in the notation quoted.

    Returns ``[(line, old, new), ...]`` for the numbers that changed, so that the prose around them
    can be read again (a claim such as "below the paper's" may no longer hold). Numbers that cannot
    be rewritten (``·10⁴`` notation) are left for :func:`check_notes` to report. The file is
    replaced atomically.
    """
    path = Path(path)
    text = path.read_text()
    quotes, default = parse_notes(text)
    expressions = iter(quote.expression for quote in quotes)  # one per marker, in the order of _MARKER
    cache, changes = {}, []

    def rewrite(match):
        expression = next(expressions)
        try:
            value = evaluate(expression, path.parent, default, cache)
        except _EVALUATION_ERRORS:  # left as written; check_notes reports it
            return match[0]
        new = rewritten_number(match["number"], value)
        if new is None or new == match["number"]:
            return match[0]
        changes.append((text.count("\n", 0, match.start()) + 1, match["number"], new))
        start = match.start("number") - match.start()
        return match[0][:start] + new + match[0][start + len(match["number"]) :]

    rewritten = _MARKER.sub(rewrite, text)
    if changes:
        write_atomic(path, rewritten)
    return changes


def paper_cells(path):
    """``[(ours, paper_mean, paper_std), ...]`` of the markers of a NOTES.md that name a paper cell."""
    path = Path(path)
    quotes, default = parse_notes(path.read_text())
    cache = {}
    return [
        (evaluate(q.expression, path.parent, default, cache), *q.paper) for q in quotes if q.paper is not None
    ]
