"""Orquestra: an orchestrated text-to-SQL agent for multi-tenant PostgreSQL.

Every package installs under this namespace (`orquestra.graph`, `orquestra.guards`, …); in the
repository they are the top-level folders, mapped by `[tool.setuptools] package-dir`."""
