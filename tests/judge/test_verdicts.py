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


def test_the_vocabularies_are_their_strings_in_json_and_in_text():
    import json

    assert verdicts.Verdict.POLICY_VIOLATION == "policy_violation" == str(verdicts.POLICY_VIOLATION)
    assert json.dumps({"verdict": verdicts.worst([verdicts.WRONG_ANSWER])}) == '{"verdict": "wrong_answer"}'
    assert isinstance(verdicts.worst(["time_limit"]), verdicts.Verdict)  # a stored string reads back as one
    assert {outcome.verdict for outcome in verdicts.ChildOutcome if outcome != "ok"} <= set(verdicts.Verdict)


def test_a_childs_end_is_decided_in_one_place_whatever_stopped_it():
    """``classify_exit`` decides every end without a response (the parent's stop, then the exit
    status) and ``interpret`` asks it: a child killed at the wall limit is a time limit whether the
    parent's clock or its exit status says so, one that printed too much an output limit."""
    import signal

    from judge.packages.limits import Limits
    from judge.runners.boundary import classify_exit, interpret

    limits = Limits()
    killed = -signal.SIGKILL
    assert classify_exit(killed, limits, limits.wall_s + 1, 0.1)[0] == "time_limit"
    assert classify_exit(killed, limits, 0.5, 0.1, stopped="time")[0] == "time_limit"
    assert classify_exit(killed, limits, 0.5, 0.1)[0] == verdicts.ChildOutcome.CRASHED
    assert verdicts.ChildOutcome.CRASHED.verdict == verdicts.RUNTIME_ERROR
    chatty = interpret({"stdout": b"x" * 5000, "result": b"partial"}, "stdout", killed, limits, 0.5, 0.1)
    assert (chatty.outcome, chatty.outcome.verdict, len(chatty.stdout)) == ("output_limit", "output_limit", 1000)
    assert chatty.detail == classify_exit(killed, limits, 0.5, 0.1, stopped="stdout")[1]
    silent = interpret({"stdout": b"", "result": b""}, None, 3, limits, 0.5, 0.1)
    assert (silent.outcome, silent.detail) == ("crashed", "exited with status 3 before reporting a result")


def test_every_trusted_finding_with_advice_of_its_kind_is_of_the_vocabulary():
    from judge.grading.grader import TRUSTED_ADVICE

    assert set(TRUSTED_ADVICE) <= set(verdicts.FindingKind)
