"""The agent's LangGraph state graph: state, run context, wiring with capped edges, models."""
