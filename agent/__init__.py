"""The assembly: the stages (nodes) wired into the LangGraph state graph, and its Studio
entry. The only layer that knows every stage."""
