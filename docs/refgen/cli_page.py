"""The command line page, from the parsers `orquestra.server.cli.build_parser` builds.

The usage lines are written here rather than by argparse, whose layout changes between
Python versions and with the terminal's width.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import PurePath

from .common import cell, code, page, table

INTRO = """
Every command of `orquestra`, as its parser defines it. Options of `orquestra` itself
(`--verbose`, `--deployment`) come before the command; `--deployment` may also follow it.
Every command reads the settings once (see [Settings](settings.md)); errors print
`error [CODE]: message` (see [Error codes](errors.md)). Exit codes: 0 success, 1 a check found
problems, 2 a user-facing error, {rejected} the guard refused the SQL (`guard rewrite`), 130
interrupted.
"""


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ("orquestra",)
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every parser under `parser`, depth first in the order they were added, with its
    command path and its help line."""
    yield path, parser, parser.description or ""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, child in action.choices.items():
                for found in commands(child, (*path, name)):
                    sub_path, sub_parser, sub_help = found
                    yield sub_path, sub_parser, sub_help or helps.get(name, "")


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def _spelling(action: argparse.Action) -> str:
    """How one argument is written: `--tenant TENANT`, `--json`, `QUESTION ...`."""
    metavar = _metavar(action)
    if not action.option_strings:
        if action.nargs == "*":
            return f"[{metavar} ...]"
        if action.nargs == "+":
            return f"{metavar} [{metavar} ...]"
        if action.nargs == "?":
            return f"[{metavar}]"
        return metavar
    option = max(action.option_strings, key=len)
    return f"{option} {metavar}" if _takes_value(action) else option


def _arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction | argparse._SubParsersAction)
    ]


def usage(path: tuple[str, ...], parser: argparse.ArgumentParser) -> str:
    """`orquestra sql [--tenant TENANT] [--raw] … query`, groups shown as `(--a | --b)`."""
    grouped: dict[int, argparse._MutuallyExclusiveGroup] = {}
    for group in parser._mutually_exclusive_groups:
        for action in group._group_actions:
            grouped[id(action)] = group
    parts: list[str] = []
    done: set[int] = set()
    actions = _arguments(parser)
    for action in [a for a in actions if a.option_strings] + [
        a for a in actions if not a.option_strings
    ]:
        exclusive = grouped.get(id(action))
        if exclusive is not None:
            if id(exclusive) in done:
                continue
            done.add(id(exclusive))
            inner = " | ".join(_spelling(a) for a in exclusive._group_actions)
            parts.append(f"({inner})" if exclusive.required else f"[{inner}]")
        elif action.option_strings and not action.required:
            parts.append(f"[{_spelling(action)}]")
        else:
            parts.append(_spelling(action))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parts.append(_metavar(action) if action.required else f"[{_metavar(action)}]")
    return " ".join([*path, *parts])


def _default(action: argparse.Action) -> str:
    default = action.default
    if default in (None, False, argparse.SUPPRESS):
        return ""
    if isinstance(default, PurePath):
        return code(default.as_posix())
    if default == []:
        return ""
    return code(default)


def _section(path: tuple[str, ...], parser: argparse.ArgumentParser, help_line: str) -> str:
    level = "#" * min(len(path) + 1, 4)
    lines = [f"{level} `{' '.join(path)}`"] if len(path) > 1 else ["## Global options"]
    if help_line and len(path) > 1:
        lines.append(cell(help_line[0].upper() + help_line[1:]) + ".")
    lines.append(f"```text\n{usage(path, parser)}\n```")
    rows = []
    for action in _arguments(parser):
        name = ", ".join(action.option_strings) or _metavar(action)
        what = action.help or ""
        if action.required and action.option_strings:
            what = f"required; {what}" if what else "required"
        if action.choices and action.option_strings and not isinstance(action.choices, dict):
            what += f" (one of: {', '.join(map(str, action.choices))})"
        rows.append([code(_spelling(action)) if name else "", _default(action), what])
    subcommands = [
        f"`{' '.join((*path, n))}`"
        for a in parser._actions
        if isinstance(a, argparse._SubParsersAction)
        for n in a.choices
    ]
    if rows:
        lines.append(table(["argument", "default", "what it does"], rows))
    if subcommands:
        lines.append("Commands: " + ", ".join(subcommands) + ".")
    return "\n\n".join(lines)


def render() -> str:
    from orquestra.guards.__main__ import EXIT_REJECTED
    from orquestra.server.cli import build_parser

    parser = build_parser()
    sections = [_section(path, sub, help_line) for path, sub, help_line in commands(parser)]
    return page("Command line", INTRO.format(rejected=EXIT_REJECTED), sections)
