"""One module per stage of the agent graph, with its prompts as files beside it."""
