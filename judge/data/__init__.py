"""The judge's vocabulary and records, no process and no JAX: verdicts and policy names, input
specs, the wire protocol and every message, the evidence a traced program shows, reports, saved
values, whether a submission's text can be read, where the judge's files are.
"""
