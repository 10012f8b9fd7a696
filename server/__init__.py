"""Orquestra's front door: settings, database connection, command line, HTTP server."""
