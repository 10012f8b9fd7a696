"""The scripted model: canned responses per role, from a YAML file (spec `scripted:PATH`).

For tests and demonstrations of each path without any real model:

```yaml
delay_ms: 0                 # optional latency per call
repeat: [sql_writer]        # roles whose last response repeats once the list is used up
roles:
  router:     [{route: ANALYTICS, wants_knowledge: false}]
  sql_writer: [{thought_process: "...", sql: "SELECT ...", missing_info: null, confidence: 0.9}]
  answer:     ["May sales were $1,234.00."]
```

A dict answers a structured-output call (it must match the schema the stage asks for), a
string answers a text call. Each role consumes its own list in order, shared by every model
instance of the process, so a multi-turn test reads naturally.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import yaml
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from orquestra.graph.hints import ModelHints
from orquestra.graph.local_model import LocalChatModel


class ScriptExhausted(Exception):
    """A role was called more often than its script provides."""


class Script:
    """The responses of one script file and, per role, how many were used."""

    def __init__(self, path: Path) -> None:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        self.path = path
        self.delay_ms = int(data.get("delay_ms", 0))
        self.repeat = set(data.get("repeat", []))
        self.roles: dict[str, list[Any]] = {
            r: list(v) for r, v in (data.get("roles") or {}).items()
        }
        self.used: dict[str, int] = {}
        self.seen: list[tuple[str, str]] = []
        """(role, prompt text) of every call, for tests that check what a stage was shown."""
        self._lock = threading.Lock()

    def next(self, role: str) -> Any:
        with self._lock:
            responses = self.roles.get(role, [])
            index = self.used.get(role, 0)
            if index >= len(responses):
                if role in self.repeat and responses:
                    return responses[-1]
                raise ScriptExhausted(f"script {self.path.name} has no more responses for {role}")
            self.used[role] = index + 1
            return responses[index]

    def calls(self, role: str) -> int:
        return self.used.get(role, 0)


_scripts: dict[Path, Script] = {}


def script(path: str | Path) -> Script:
    """The process-wide script for `path` (loaded on first use)."""
    resolved = Path(path).resolve()
    if resolved not in _scripts:
        _scripts[resolved] = Script(resolved)
    return _scripts[resolved]


def reset_scripts() -> None:
    """Forget every loaded script (tests start each from its first response)."""
    _scripts.clear()


class ScriptedChatModel(LocalChatModel):
    """Answers each call with the next scripted response for its role."""

    script_path: str

    async def respond(
        self, messages: list[BaseMessage], schema: type[BaseModel] | None, hints: ModelHints
    ) -> str | dict[str, Any]:
        current = script(self.script_path)
        current.seen.append((self.role, "\n\n".join(str(m.content) for m in messages)))
        answer: str | dict[str, Any] = current.next(self.role)
        if schema is None and not isinstance(answer, str):
            raise ScriptExhausted(f"{self.role} expected text but the script holds {answer!r}")
        return answer
