"""Foundations every other layer may use: settings, the database connection, limits, the
deployment folder and its profile. Imports nothing of Orquestra but the sample deployments' data."""
