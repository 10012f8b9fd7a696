"""The asker's own company, named in the question, is whose data this is — never a value for
the SQL writer to filter a row by: the hosted model's prompt says so, and the in-process
models get the names as data. Another tenant's name is not singled out: the prompt leaves it
in the question as any unknown name, so the SQL cannot tell a tenant's name from another.
(The default offline model over a real server: tests/e2e/test_hardening.py, "naming your own
company", and tests/e2e/test_other_tenant_note.py.)"""

from __future__ import annotations

import re

from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import data_turn

LEGAL_FORM = re.compile(r"\s+(ltda\.?|s\.?\s?a\.?|me|epp|eireli)$", re.IGNORECASE)


async def test_only_the_askers_own_company_is_whose_data_it_is(harness: Harness) -> None:
    names = harness.resources.tenant_names.names
    own = LEGAL_FORM.sub("", names[harness.deployment.tenant])
    other = next(name for code, name in names.items() if code != harness.deployment.tenant)
    question = f"quantos registros da {own} e da {other}?"
    script = harness.use(data_turn(question, harness.sql.monthly))
    await harness.ask(question)
    prompt = next(p for role, p in script.seen if role == "sql_writer")
    note = prompt.split("## Own company named\n", 1)[1].split("\n\n", 1)[0]
    assert own in note and "Do not filter" in note
    assert other not in note  # another tenant's name: as any name would be, in the question
    plain = harness.use(data_turn("quantos registros?", harness.sql.monthly))
    await harness.ask("quantos registros?", thread="plain")
    unnamed = next(p for role, p in plain.seen if role == "sql_writer")
    assert "## Own company named" not in unnamed
    other_only = harness.use(data_turn(f"quantos registros da {other}?", harness.sql.monthly))
    await harness.ask(f"quantos registros da {other}?", thread="other")
    prompt = next(p for role, p in other_only.seen if role == "sql_writer")
    assert "## Own company named" not in prompt and other in prompt
