"""Saved values compared by value (issue 21): independent of layout and order, proportional values
are the same value, constants are told apart, and a value of another origin never matches."""

import numpy as np

from judge.data.saved_values import SavedValue, fingerprint, pair

RNG = np.random.default_rng(0)


def saved(public, hidden=None, memory="device") -> SavedValue:
    public = np.asarray(public, np.float32)
    hidden = public if hidden is None else np.asarray(hidden, np.float32)
    return SavedValue("float32", public.size, public.nbytes, memory, fingerprint(public), fingerprint(hidden))


def test_a_transposed_or_reordered_value_is_the_same_value():
    a = RNG.standard_normal((8, 16)).astype(np.float32)
    h = RNG.standard_normal((8, 16)).astype(np.float32)
    b = RNG.standard_normal((16, 16)).astype(np.float32)
    mine = [saved(b.T, b.T + 1), saved(a.T, h.T)]
    theirs = [saved(a, h), saved(b, b + 1)]
    assert pair(mine, theirs).matches


def test_a_multiple_of_the_value_is_the_same_value():
    """2 * h where the reference keeps h: how plain autodiff keeps the derivative of h ** 2 is style."""
    h = RNG.standard_normal(64)
    assert pair([saved(2 * h, 2 * h + 2)], [saved(h, h + 1)]).matches
    assert pair([saved(-3 * h, -3 * h - 3)], [saved(h, h + 1)]).matches


def test_another_value_of_the_same_type_is_not_the_same():
    """A label on the wrong value: the input instead of its projection, the pre-activation instead of tanh of it."""
    x = RNG.standard_normal((6, 8))
    hx = RNG.standard_normal((6, 8))
    w = RNG.standard_normal((8, 8)) * 0.3
    found = pair([saved(x, hx)], [saved(x @ w, hx @ w)])
    assert not found.matches and found.extra == [0] and found.missing == [0]
    found = pair([saved(x @ w, hx @ w)], [saved(np.tanh(x @ w), np.tanh(hx @ w))])
    assert not found.matches


def test_only_the_hidden_inputs_decide():
    """A child that knows the case's inputs can bake their values in; the hidden run it never saw decides."""
    x, hidden, forged = (RNG.standard_normal(32) for _ in range(3))
    assert not pair([saved(x, forged)], [saved(x, hidden)]).matches


def test_a_constant_counts_only_where_the_problem_says_so():
    table = np.tril(np.ones((6, 6)))
    x = RNG.standard_normal((6, 6))
    mine = [saved(x, x + 1), saved(table)]
    theirs = [saved(x, x + 1)]
    assert saved(table).constant and not saved(x, x + 1).constant
    assert pair(mine, theirs).matches
    found = pair(mine, theirs, constants=True)
    assert found.extra == [1] and not found.missing


def test_the_same_value_in_another_memory_is_one_difference_of_its_own():
    h = RNG.standard_normal(16)
    found = pair([saved(h, h + 1, memory="device")], [saved(h, h + 1, memory="pinned_host")])
    assert found.elsewhere == [(0, 0)] and not found.extra and not found.missing and not found.matches


def test_a_fingerprint_survives_the_wire():
    from judge.data.saved_values import SavedValue

    value = saved(RNG.standard_normal(10))
    back = SavedValue.from_wire(value.to_wire())
    assert back.dtype == value.dtype and np.array_equal(back.hidden, value.hidden)
