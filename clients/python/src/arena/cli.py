"""The ``arena`` command.

Exit status: 0 when the code was accepted (`run`, `submit --wait`, `status`), inspected
(`inspect`: it ran, there is no verdict) or the command did what it says; 1 for any other verdict; 2 when the site refused or could not be reached (the
reason is printed); 3 when a submission is queued but not graded yet (`submit` without
`--wait`)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from . import __version__, config
from .client import ArenaError, Client
from .result import Result, render_exploration, table

ACCEPTED, REJECTED, FAILED, PENDING = 0, 1, 2, 3


def _client() -> Client:
    return Client.from_settings()


def _color() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _print_result(result: Result) -> int:
    print(result.render(color=_color()))
    return ACCEPTED if result.accepted or result.inspected else REJECTED


def _status_line(status: str) -> None:
    if status != "done":  # the verdict follows at once
        print(f"  {status} ...", file=sys.stderr, flush=True)


def cmd_login(args) -> int:
    url = config.site_root(args.url)
    if args.token:
        token = args.token
    elif sys.stdin.isatty():
        print(f"Create a token on {url}/accounts/tokens/ and paste it here (it is not shown).")
        token = getpass.getpass("API token: ")
    else:
        token = sys.stdin.readline()
    token = token.strip()
    if not token:
        raise ArenaError("no_token", "No token given: paste the token the site showed when you created it.")
    with Client(url, token) as site:
        me = site.me()
    path = config.save(url=url, token=token)
    print(
        f"Logged in to {url} as {me['username']}{' (instructor)' if me['instructor'] else ''}. "
        f"The token is in {path}, readable only by you."
    )
    if os.environ.get(config.URL_VARIABLE) or os.environ.get(config.TOKEN_VARIABLE):
        print(f"Note: {config.URL_VARIABLE}/{config.TOKEN_VARIABLE} are set in this environment and take precedence.")
    return 0


def cmd_logout(args) -> int:
    print(
        "The stored token is deleted (revoke it on the site too if it may have leaked)."
        if config.forget()
        else "No token was stored."
    )
    return 0


def cmd_whoami(args) -> int:
    with _client() as site:
        me = site.me()
        print(f"{me['username']} on {site.url}{' (instructor)' if me['instructor'] else ''}")
    return 0


def cmd_problems(args) -> int:
    with _client() as site:
        problems = site.problems(tag=args.tag, difficulty=args.difficulty)
    rows = [
        ["✓" if p["solved"] else "", p["slug"], p["difficulty"], p["title"], ", ".join(p["tags"])] for p in problems
    ]
    print(table(["", "slug", "difficulty", "title", "tags"], rows))
    return 0


def cmd_courses(args) -> int:
    with _client() as site:
        if args.course is None:
            rows = [[c["id"], c["title"], c["term"], "archived" if c["archived"] else ""] for c in site.courses()]
            print(table(["id", "course", "term", ""], rows))
            return 0
        course = site.course(args.course)
    print(f"{course['title']}{' (' + course['term'] + ')' if course['term'] else ''}")
    rows = [
        [a["id"], a["title"], a["due_at"], ", ".join(p["slug"] for p in a["problems"])] for a in course["assignments"]
    ]
    print(table(["id", "assignment", "due", "problems"], rows))
    return 0


def cmd_gradebook(args) -> int:
    with _client() as site:
        book = site.gradebook(args.course, args.assignment, q=args.q or "", show=args.show)
    slugs = [p["slug"] for p in book["problems"]]
    rows = [
        [r["username"], r["student_id"], *[c["verdict"] or "-" for c in r["cells"]], f"{r['points']:g}/{r['out_of']}"]
        for r in book["rows"]
    ]
    print(table(["learner", "student id", *slugs, "points"], rows))
    return 0


def cmd_similarity(args) -> int:
    with _client() as site:
        if args.check:
            site.check_similarity(args.course, args.assignment)
            print("The check is queued: run this again without --check in a minute to read its pairs.")
            return 0
        report = site.similarity(args.course, args.assignment)
    if report["checked_at"] is None:
        print(f"No finished check yet (latest: {report['latest_status'] or 'none'}); start one with --check.")
        return 0
    left_out = [f"{e['problem'] or 'every problem'}: {e['what']} ({e['lines']} lines)" for e in report["excluded"]]
    print("Left out as given to everyone: " + ("; ".join(left_out) or "nothing"))
    rows = [
        [
            f"{round(p['similarity'] * 100)}%",
            p["problem"],
            f"{p['first']['username']} ({round(p['first']['share'] * 100)}%)",
            f"{p['second']['username']} ({round(p['second']['share'] * 100)}%)",
        ]
        for p in report["pairs"]
    ]
    print(table(["similarity", "problem", "learner", "learner"], rows))
    return 0


def cmd_show(args) -> int:
    with _client() as site:
        problem = site.problem(args.slug)
    print(problem["statement_markdown"].strip())
    print(f"\n{problem['difficulty'].capitalize()}; version {problem['version']}; tags: {', '.join(problem['tags'])}")
    print(f"\nSignature: {problem['signature']}")
    samples = [[s["name"], ", ".join(f"{k}={v}" for k, v in s["shapes"].items())] for s in problem["samples"]]
    print(f"\nSample cases ({problem['case_count']} cases in all when submitted):")
    print(table(["case", "shapes"], samples))
    for number, hint in enumerate(problem["hints"], start=1):
        print(f"\nHint {number}: {hint}")
    target = Path(args.output or f"{problem['slug']}.py")
    if target.exists() and not args.force:
        print(f"\n{target} exists already: left as it is (--force replaces it with the starter).")
    else:
        target.write_text(problem["starter"])
        print(f"\nWrote the starter code to {target}. Then: arena run {problem['slug']} {target}")
    return 0


def _send(args, kind: str, wait: bool) -> int:
    source = Path(args.file).read_text()
    with _client() as site:
        created = site.create(args.slug, source, kind=kind)
        if not wait:
            print(
                f"Submitted as #{created['id']} ({created['status']}). "
                f"The verdict: arena status {created['id']} --wait, or {site.url}{created['url']}"
            )
            return PENDING
        doing = {"run": "Running the samples", "inspect": "Inspecting"}.get(kind, "Submitted")
        print(f"{doing} as #{created['id']}", file=sys.stderr)
        return _print_result(site.wait(created["id"], timeout=args.timeout, on_status=_status_line))


def cmd_run(args) -> int:
    return _send(args, "run", wait=True)


def cmd_inspect(args) -> int:
    return _send(args, "inspect", wait=True)


def cmd_submit(args) -> int:
    return _send(args, "submit", wait=args.wait)


def cmd_explore(args) -> int:
    source = Path(args.file).read_text()
    function = args.function or _last_function(source)
    if not function:
        print(
            f"arena: {args.file} defines no function and builds no module at its top level; name one with --function",
            file=sys.stderr,
        )
        return FAILED
    with _client() as site:
        created = site.explore(source, function, args.args, budget=args.budget, budget_on=args.budget_on)
        print(f"Exploring as #{created['id']}", file=sys.stderr)
        found = site.wait_exploration(created["id"], timeout=args.timeout, on_status=_status_line)
        found = site.chosen_on(found, budget=args.budget, budget_on=args.budget_on)
    print(render_exploration(found))
    return FAILED if found.get("error") else 0


def _last_function(source: str) -> str | None:
    """What the file defines last at its top level (as ``python -m judge explore``): a function, or
    a name bound to a call (a module built from shapes: ``model = eqx.filter_eval_shape(...)``)."""
    import ast

    try:
        body = ast.parse(source).body
    except SyntaxError:
        return None
    names = [
        node.name if isinstance(node, ast.FunctionDef) else node.targets[0].id
        for node in body
        if isinstance(node, ast.FunctionDef)
        or isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
    ]
    return names[-1] if names else None


def cmd_status(args) -> int:
    with _client() as site:
        if args.wait:
            return _print_result(site.wait(args.id, timeout=args.timeout, on_status=_status_line))
        data = site.submission(args.id)
        if not data["done"]:
            print(f"#{data['id']} is {data['status']}.")
            return PENDING
        return _print_result(Result(data, site=site.url))


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="arena",
        description="Run and submit solutions to Remat Arena.",
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    main.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    login = sub.add_parser("login", help="store the site's address and your API token")
    login.add_argument("url", help="the site, such as https://arena.example.org/")
    login.add_argument("--token", help="the token (default: asked for, or read from standard input)")
    login.set_defaults(func=cmd_login)
    sub.add_parser("logout", help="delete the stored token").set_defaults(func=cmd_logout)
    sub.add_parser("whoami", help="who the token belongs to").set_defaults(func=cmd_whoami)

    problems = sub.add_parser("problems", help="list the problems")
    problems.add_argument("--tag")
    problems.add_argument("--difficulty", choices=["easy", "medium", "hard"])
    problems.set_defaults(func=cmd_problems)

    show = sub.add_parser("show", help="print a problem and write SLUG.py from its starter code")
    show.add_argument("slug")
    show.add_argument("-o", "--output", help="where to write the starter (default: SLUG.py)")
    show.add_argument("--force", action="store_true", help="replace the file if it exists")
    show.set_defaults(func=cmd_show)

    for name, func, text in (
        ("run", cmd_run, "grade FILE on the sample cases (not recorded)"),
        (
            "inspect",
            cmd_inspect,
            "what FILE saves for the backward pass, its checkpoints and "
            "its peak memory, on a sample case (no verdict, not recorded)",
        ),
        ("submit", cmd_submit, "submit FILE: every case, recorded and ranked"),
    ):
        command = sub.add_parser(name, help=text)
        command.add_argument("slug")
        command.add_argument("file")
        if name == "submit":
            command.add_argument("--wait", action="store_true", help="wait for the verdict and print it")
        command.add_argument("--timeout", type=float, default=300, help="seconds to wait (default: %(default)s)")
        command.set_defaults(func=func)

    explore = sub.add_parser(
        "explore", help="every checkpoint policy of a function in FILE: memory, FLOPs, and the plan that fits a budget"
    )
    explore.add_argument("file")
    explore.add_argument(
        "--function",
        help="the function, or the Equinox or Flax NNX module, to explore "
        "(default: what the file defines last at its top level)",
    )
    explore.add_argument(
        "--args", nargs="+", required=True, help="each argument's dtype and shape, such as f32[64,128]"
    )
    explore.add_argument("--budget", type=int, help="bytes the plan may use (see --budget-on)")
    explore.add_argument(
        "--budget-on",
        choices=("held", "peak"),
        default="held",
        help="what the budget bounds: the bytes held on the device between the passes (default), or the step's peak",
    )
    explore.add_argument("--timeout", type=float, default=300, help="seconds to wait (default: %(default)s)")
    explore.set_defaults(func=cmd_explore)

    courses = sub.add_parser("courses", help="the courses you teach, or one course's assignments")
    courses.add_argument("course", type=int, nargs="?", help="a course's id: list its assignments")
    courses.set_defaults(func=cmd_courses)
    gradebook = sub.add_parser("gradebook", help="an assignment's gradebook: each learner's verdict per problem")
    gradebook.add_argument("course", type=int)
    gradebook.add_argument("assignment", type=int)
    gradebook.add_argument("--q", help="part of a username, name, e-mail or student id")
    gradebook.add_argument("--show", choices=["all", "missing", "late", "complete", "none"], default="all")
    gradebook.set_defaults(func=cmd_gradebook)
    similarity = sub.add_parser("similarity", help="an assignment's similarity report (--check starts a check)")
    similarity.add_argument("course", type=int)
    similarity.add_argument("assignment", type=int)
    similarity.add_argument("--check", action="store_true", help="start a new check")
    similarity.set_defaults(func=cmd_similarity)

    status = sub.add_parser("status", help="a submission's status, or its verdict once graded")
    status.add_argument("id", type=int)
    status.add_argument("--wait", action="store_true")
    status.add_argument("--timeout", type=float, default=300)
    status.set_defaults(func=cmd_status)
    return main


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except ArenaError as exc:
        print(f"arena: {exc.message}", file=sys.stderr)
        return FAILED
    except (OSError, ValueError) as exc:  # a file that cannot be read, a malformed address
        print(f"arena: {exc}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
