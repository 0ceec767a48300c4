"""How a figure is computed from line items: the one shape every ratio and definition is read into.

A ratio's formula is declared (shared/text/ratios.py); a question may also write its own: "EBITDA is
operating income plus depreciation and amortization", "(total current assets − inventories) / total
current liabilities", "365 * (average accounts payable) / (cost of sales)". This module reads such
a definition, as a sequence of lines, constants, operators and parentheses, into a constant times a
sum of lines over a sum of lines: the shape an analyst's metric has, and one whose working a reader
can check line by line. A definition of another shape (a product of two lines, a line counted
twice) is not read, so nothing is computed from it rather than something else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Unit = Literal["percent", "times", "days", "amount"]


@dataclass(frozen=True)
class Formula:
    """How a figure is computed from its parts' values (indices into the parts): the sum of `add` less
    the sum of `less`, over the sum of `over` less the sum of `over_less` when there is a divisor,
    times a constant the definition states (`factor`: 365 of "365 * payables / cost of sales"), as
    a percentage, a multiple, days, or an amount in the rows' own units."""

    add: tuple[int, ...]
    less: tuple[int, ...] = ()
    over: tuple[int, ...] = ()
    unit: Unit = "percent"
    over_less: tuple[int, ...] = ()
    factor: float | None = None


Part = tuple[str, ...]
"""One line a figure is computed from, as statements may label it (alternatives)."""

QUOTIENT, PERCENTAGE = Formula((0,), over=(1,), unit="times"), Formula((0,), over=(1,))
DIFFERENCE, DAYS = Formula((0,), less=(1,), unit="amount"), Formula((0,), over=(1,), unit="days")


@dataclass(frozen=True)
class Computation:
    """A figure to compute: what the question calls it (its definition when it names none), its parts,
    and how."""

    name: str
    parts: tuple[Part, ...]
    formula: Formula
    # The parts asked as an average of the period's and the prior period's figures.
    averaged: tuple[int, ...] = ()
    # The question gives the formula itself.
    defined: bool = False
    # The figure is the mean of its values for this many years, the latest the question names last.
    years: int = 1
    # A share of a whole, asked without an operator: a percentage between 0 and 100, or no share.
    share: bool = False


Token = tuple[Literal["part"], int] | tuple[Literal["constant"], float] | tuple[Literal["operator"], str]
"""One item of a definition: a line (its part's index), a constant, an operator (+ − × ÷), or a
parenthesis (an operator "(" or ")")."""


@dataclass(frozen=True)
class _Sum:
    """A figure as read so far: signed lines over signed lines (none: no divisor), times a factor; a
    constant alone has no lines."""

    lines: dict[int, int]
    divisor: dict[int, int] | None = None
    factor: float = 1.0

    @property
    def constant(self) -> bool:
        return not self.lines


def _combined(left: _Sum, right: _Sum, sign: int) -> _Sum | None:
    """left ± right: only sums of lines without a divisor or factor add up."""
    if left.constant or right.constant or left.divisor or right.divisor or left.factor != 1 or right.factor != 1:
        return None
    lines = dict(left.lines)
    for line, weight in right.lines.items():
        lines[line] = lines.get(line, 0) + sign * weight
    return _Sum({line: w for line, w in lines.items() if w})


def _applied(left: _Sum, operator: str, right: _Sum) -> _Sum | None:
    if operator in "+-":
        return _combined(left, right, 1 if operator == "+" else -1)
    if operator == "*":
        constant, other = (left, right) if left.constant else (right, left)
        return _Sum(other.lines, other.divisor, other.factor * constant.factor) if constant.constant else None
    if right.constant:
        return _Sum(left.lines, left.divisor, left.factor / right.factor) if right.factor else None
    if left.divisor is None and right.divisor is None and right.factor == 1 and not left.constant:
        return _Sum(left.lines, right.lines, left.factor)
    return None


class _Reader:
    """A small precedence reader: sums of products of lines, constants and parenthesised sums."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens, self.at = tokens, 0

    def peek(self) -> Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> Token:
        self.at += 1
        return self.tokens[self.at - 1]

    def sum(self) -> _Sum | None:
        return self.chain(self.product, "+-")

    def product(self) -> _Sum | None:
        return self.chain(self.single, "*/")

    def chain(self, read: Callable[[], _Sum | None], operators: str) -> _Sum | None:
        value = read()
        while value and (token := self.peek()) and token[0] == "operator" and str(token[1]) in operators:
            operator = str(self.take()[1])
            right = read()
            value = _applied(value, operator, right) if right else None
        return value

    def single(self) -> _Sum | None:
        token = self.peek()
        if token is None:
            return None
        self.take()
        if token[0] == "part":
            return _Sum({int(token[1]): 1})
        if token[0] == "constant":
            return _Sum({}, factor=float(token[1]))
        if token[1] != "(":
            return None
        inner = self.sum()
        closing = self.peek()
        # A parenthesis left open at the end of the definition closes there.
        if closing is not None and closing != ("operator", ")"):
            return None
        if closing is not None:
            self.take()
        return inner


def _signed(lines: dict[int, int], sign: int) -> tuple[int, ...]:
    return tuple(line for line, weight in lines.items() if weight == sign)


def formula_of(tokens: list[Token], unit: Unit) -> Formula | None:
    """The formula a definition writes, its figure stated in `unit` (an amount when it has no
    divisor; a factor of 100 on a percentage is the percentage itself); none when it is not a
    constant times a sum of lines over a sum of lines, each line counted once, one of them added."""
    reader = _Reader(tokens)
    read = reader.sum()
    if read is None or read.constant or reader.at != len(tokens):
        return None
    divisor = read.divisor or {}
    if any(abs(w) != 1 for w in [*read.lines.values(), *divisor.values()]) or set(read.lines) & set(divisor):
        return None
    add, less = _signed(read.lines, 1), _signed(read.lines, -1)
    over, over_less = _signed(divisor, 1), _signed(divisor, -1)
    factor = None if read.factor == 1 or (unit == "percent" and over and read.factor == 100) else read.factor
    if not add:
        return None
    return Formula(add, less, over, unit if over else "amount", over_less, factor)


def written(formula: Formula, names: list[str]) -> str:
    """The sum over the sum in signs, each line by its name: "(operating income + depreciation and
    amortization) ÷ net sales" (the factor left to the caller)."""

    def terms(plus: tuple[int, ...], minus: tuple[int, ...]) -> str:
        text = " + ".join(names[i] for i in plus) + "".join(f" − {names[i]}" for i in minus)
        return f"({text})" if formula.over and len(plus) + len(minus) > 1 else text

    text = terms(formula.add, formula.less)
    return f"{text} ÷ {terms(formula.over, formula.over_less)}" if formula.over else text


def described(formula: Formula, names: list[str]) -> str:
    """The formula in words and signs, its factor first: "365 × accounts payable ÷ cost of sales"."""
    text = written(formula, names)
    return f"{formula.factor:g} × {text}" if formula.factor else text
