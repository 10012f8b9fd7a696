"""Running analysis outside the server's process: warm, confined worker processes."""
