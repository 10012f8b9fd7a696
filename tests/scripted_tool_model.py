"""A scripted tool-calling chat model, for running LangChain's SQL agent in tests without a
provider: per question, the tool calls it makes in order, then its final answer.

It reads only the conversation's structure (the last user message, and how many of its own
messages follow it), never the prompts' wording. Called without tools bound, as the query
checker calls it, it approves the query. Each answer carries usage, counted from the text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult

Step = tuple[str, str]
"""`(tool name, its text argument)`, or `("answer", text)` to finish."""
ARGUMENT = {
    "sql_db_list_tables": "tool_input",
    "sql_db_schema": "table_names",
    "sql_db_query_checker": "query",
    "sql_db_query": "query",
}
CHECKER_REPLY = "The query is correct."


def tables_then(query: str, tables: str, answer: str) -> list[Step]:
    """The path LangChain's SQL agent is told to take: tables, schema, check, query, answer."""
    return [
        ("sql_db_list_tables", ""),
        ("sql_db_schema", tables),
        ("sql_db_query_checker", query),
        ("sql_db_query", query),
        ("answer", answer),
    ]


class ScriptedToolModel(BaseChatModel):
    """Answers each question (the last user message) with its script's next step."""

    scripts: dict[str, list[Step]]
    tools_bound: bool = False

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-model"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedToolModel:  # type: ignore[override]
        return self.model_copy(update={"tools_bound": True})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(messages) if self.tools_bound else AIMessage(CHECKER_REPLY)
        said = str(reply.content) or json.dumps(reply.tool_calls)
        prompt = sum(len(str(m.content)) for m in messages) // 4 + 1
        reply.usage_metadata = {
            "input_tokens": prompt,
            "output_tokens": len(said) // 4 + 1,
            "total_tokens": prompt + len(said) // 4 + 1,
        }
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        asked = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        done = sum(isinstance(m, AIMessage) for m in messages[asked:])
        steps = self.scripts[str(messages[asked].content)]
        name, argument = steps[min(done, len(steps) - 1)]
        if name == "answer":
            return AIMessage(argument)
        call = {"name": name, "args": {ARGUMENT[name]: argument}, "id": f"call-{done}"}
        return AIMessage("", tool_calls=[call])
