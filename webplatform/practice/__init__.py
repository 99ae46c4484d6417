"""The learner's pages: the problem list and a problem's page. Each shows several layers at once
(the catalog's problems, the learner's own submissions, the leaderboard's counts), so they sit
above all of them and nothing below reads from here."""
