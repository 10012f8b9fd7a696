"""The graph LangGraph Studio and `langgraph dev` serve (see `langgraph.json`).

The platform supplies the checkpointer and gives us no start-up hook, so the resources open
on the first run (`OnFirstRun`: the one lazy path). Set the tenant in the assistant's context
(`{"tenant": "101"}`): without one, no data is read.
"""

from __future__ import annotations

from orquestra.agent.wiring import build_graph
from orquestra.graph.resources import OnFirstRun

graph = build_graph(OnFirstRun()).compile(name="orquestra")
