"""What counts as the same number: float32 rounding scales with the array, a wrong program does not hide in it."""

import numpy as np

from judge.grading.compare import compare_arrays


def _gradient_like(largest: float) -> np.ndarray:
    # An array whose entries run from 0.02 up to ``largest``, as a weight gradient's do.
    return np.linspace(0.02, largest, 64, dtype=np.float32).reshape(8, 8)


def test_rounding_of_a_large_gradient_in_a_small_entry_is_accepted():
    # Seen on attention_keep_qkv: a hand-written softmax against jax.nn.softmax, on the hidden
    # inputs of one salt, gave 0.023775 where the reference gave 0.023758, in a gradient that
    # reaches 7.05 (1.7e-5 apart, 2.4e-6 of the array's scale): right code, refused before.
    want = _gradient_like(7.05)
    want[0, 0] = 0.023758
    got = want.copy()
    got[0, 0] = 0.023775
    message, error = compare_arrays("the gradient", got, want, rtol=1e-4, atol=1e-5)
    assert message is None
    assert error > 1e-5


def test_a_wrong_entry_of_a_large_gradient_is_still_refused():
    want = _gradient_like(7.05)
    got = want.copy()
    got[0, 0] += 1e-3  # 1.4e-4 of the array's scale: ten times what its rounding can explain
    message, _ = compare_arrays("the gradient", got, want, rtol=1e-4, atol=1e-5)
    assert message is not None
    assert "index (0, 0)" in message
    assert "atol=1e-05 x 7.05 (the largest magnitude)" in message


def test_arrays_of_magnitude_below_one_keep_the_plain_absolute_tolerance():
    want = _gradient_like(0.5)
    got = want.copy()
    got[3, 3] += 4e-5  # over atol + rtol * 0.23 = 3.3e-5
    message, _ = compare_arrays("the gradient", got, want, rtol=1e-4, atol=1e-5)
    assert message is not None
    assert "atol=1e-05," in message


def test_a_wrong_value_reads_the_same_whatever_its_rounding_noise():
    # Seen in make test: attention_keep_qkv's no_scaling gave 3.302311 on one run and 3.3023100 on
    # another (float32's seventh digit), and its message with them. The digits that tell the two
    # values apart are what the learner needs; the noise below them must not show.
    want = np.array(3.031542, dtype=np.float32)
    told = {
        compare_arrays("the output", np.array(got, dtype=np.float32), want, rtol=1e-4, atol=1e-5)[0]
        for got in (3.302311, 3.3023100, 3.3023105)
    }
    assert told == {
        "the output differs at index (): got 3.302, expected 3.032 "
        "(max abs error 0.271, tolerance atol=1e-05 x 3.03 (the largest magnitude), rtol=0.0001)"
    }
    close, _ = compare_arrays("the output", np.array(1.0012, np.float32), np.array(1.0, np.float32), 1e-4, 1e-5)
    assert "got 1.001, expected 1 " in close  # as many digits as it takes to tell them apart
