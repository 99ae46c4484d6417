"""An expression of the learner's, named as they wrote it: the operation it calls, cut to a cell's width."""

from __future__ import annotations

import ast

# An expression longer than this is cut (a message names it, a table cell shows it).
LONGEST = 60
SYMBOLS = {
    ast.MatMult: "@",
    ast.Pow: "**",
    ast.Mult: "*",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.USub: "-",
    ast.UAdd: "+",
    ast.Not: "not",
    ast.Invert: "~",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.Gt: ">",
    ast.Lt: "<",
    ast.GtE: ">=",
    ast.LtE: "<=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}


def operation(node: ast.AST | None) -> str:
    """The operation an expression calls: a function's own name, an operator's symbol."""
    if isinstance(node, ast.Call):
        func = node.func
        return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        return SYMBOLS.get(type(node.op), "")
    if isinstance(node, ast.Compare) and node.ops:
        return SYMBOLS.get(type(node.ops[0]), "")
    if isinstance(node, ast.Subscript):
        return "indexing"
    return ""


def short(text: str) -> str:
    """The expression as a message names it: cut after ``LONGEST`` characters."""
    return text if len(text) <= LONGEST else text[: LONGEST - 1].rstrip() + "…"
