"""A company the question names is a tenant — whose data this is — never a value for the SQL
writer to filter a row by: the hosted model's prompt says so, and the in-process models get
the names as data. (The default offline model over a real server: tests/e2e/test_hardening.py,
"naming your own company".)"""

from __future__ import annotations

import re

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import data_turn

LEGAL_FORM = re.compile(r"\s+(ltda\.?|s\.?\s?a\.?|me|epp|eireli)$", re.IGNORECASE)


async def test_a_named_company_is_whose_data_it_is_not_a_filter(harness: Harness) -> None:
    names = harness.resources.tenant_names.names
    own = LEGAL_FORM.sub("", names[harness.deployment.tenant])
    other = next(name for code, name in names.items() if code != harness.deployment.tenant)
    question = f"quantos registros da {own} e da {other}?"
    script = harness.use(data_turn(question, harness.sql.monthly))
    await harness.ask(question)
    prompt = next(p for role, p in script.seen if role == "sql_writer")
    note = prompt.split("## Companies named\n", 1)[1].split("\n\n", 1)[0]
    assert own in note and other in note and "Do not filter" in note
    plain = harness.use(data_turn("quantos registros?", harness.sql.monthly))
    await harness.ask("quantos registros?", thread="plain")
    unnamed = next(p for role, p in plain.seen if role == "sql_writer")
    assert "## Companies named" not in unnamed
