"""How a plain value of a record's field is read: true or false, an integer, a number, text, an
array, each exactly (a bool is not an integer here); ``Unreadable`` carries where a value failed
to read, collected on its way out of the nested readers of ``records``."""

from __future__ import annotations

import numpy as np


class Unreadable(Exception):
    """A value that does not read as its declared type; ``path``: where, innermost part first."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message, self.path = message, []  # path: innermost part first

    def at(self, part: str) -> Unreadable:
        self.path.append(part)
        return self


def _read_bool(value):
    if value.__class__ is not bool:  # bool has no subclasses
        raise Unreadable("expected true or false")
    return value


def _read_int(value):
    if value.__class__ is not int and (not isinstance(value, int) or isinstance(value, bool)):
        raise Unreadable("expected an integer")
    return value


def _read_float(value):
    if value.__class__ is not float and (not isinstance(value, int | float) or isinstance(value, bool)):
        raise Unreadable("expected a number")
    return value


def _read_str(value):
    if not isinstance(value, str):
        raise Unreadable("expected text")
    return value


def _read_array(value):
    if not isinstance(value, np.ndarray):
        raise Unreadable("expected an array")
    return value


PLAIN = {bool: _read_bool, int: _read_int, float: _read_float, str: _read_str, np.ndarray: _read_array}
