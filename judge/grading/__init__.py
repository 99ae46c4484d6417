"""Grading: a source through its children to a report. The reference's cached results, the
comparison, the rules and the words a learner reads, Inspect and the policy explorer.
"""
