"""The graph LangGraph Studio and `langgraph dev` serve (see `langgraph.json`).

The platform supplies the checkpointer; resources open lazily on the first run. Set the
tenant in the assistant's context (`{"tenant": "101"}`): without one, no data is read.
"""

from __future__ import annotations

from orquestra.agent.wiring import build_graph

graph = build_graph().compile(name="orquestra")
