"""The reference pages' builders, one module a page (run by `docs/gen_reference.py`)."""
