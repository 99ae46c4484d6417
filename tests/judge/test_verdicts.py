"""One verdict vocabulary: every verdict has a severity and a description, and whatever maps
to a verdict maps to one of them."""

from judge.data import verdicts


def test_every_verdict_has_one_severity_and_a_description():
    assert sorted(verdicts.SEVERITY) == sorted(verdicts.VERDICTS)
    assert set(verdicts.DESCRIPTIONS) == set(verdicts.VERDICTS)


def test_the_worst_case_decides_and_no_case_means_accepted():
    assert verdicts.worst([verdicts.POLICY_VIOLATION, verdicts.WRONG_ANSWER]) == verdicts.WRONG_ANSWER
    assert verdicts.worst([verdicts.ACCEPTED, verdicts.TIME_LIMIT, verdicts.RUNTIME_ERROR]) == verdicts.TIME_LIMIT
    assert verdicts.worst([]) == verdicts.ACCEPTED


def test_child_outcomes_and_error_kinds_map_to_verdicts():
    assert set(verdicts.CHILD_OUTCOMES.values()) <= set(verdicts.VERDICTS)
    assert set(verdicts.ERROR_KINDS.values()) <= set(verdicts.VERDICTS)
    assert verdicts.CHILD_OUTCOMES["sandbox_error"] == verdicts.INTERNAL_ERROR  # never the learner's fault
    assert verdicts.ERROR_KINDS["bad_output"] == verdicts.WRONG_ANSWER


def test_running_out_of_memory_is_recognized_once_for_the_child_and_the_verifier():
    from judge.data.verdicts import error_kind

    assert error_kind(MemoryError()) == "memory_limit"
    assert (
        error_kind(RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 8 bytes")) == "memory_limit"
    )
    assert error_kind(ValueError("shapes (2,3) and (4,5) not aligned")) == "runtime_error"
