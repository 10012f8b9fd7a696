"""Which number a person means by "<entity> 123", and which tables are series of events.

Checked on a small catalog of another business, so the rules stand on the catalog's shape
(keys, unique indexes, nullable timestamps), not on the demo's names.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.offline.lexicon import key_column, lexicon_for, natural_keys
from orquestra.offline.parser import parse
from orquestra.offline.sql import _series_for, build_sql

SYSTEM = """\
system: imaging
title: Imaging
purpose: Exam reports of each clinic, their findings and status changes.
ddl: |
  CREATE TABLE report (
      report_id   bigint       NOT NULL,
      clinic_id   integer      NOT NULL,
      report_no   integer      NOT NULL,
      status      text         NOT NULL,
      PRIMARY KEY (report_id)
  );
  CREATE TABLE finding (
      report_id   bigint       NOT NULL,
      item        integer      NOT NULL,
      severity    text         NOT NULL,
      told_at     timestamptz,
      PRIMARY KEY (report_id, item)
  );
  CREATE UNIQUE INDEX report_clinic_no_idx ON report (clinic_id, report_no);
tables:
  report:
    tenant_column: clinic_id
    synonyms: {en: [report, reports]}
    columns:
      status:
        values: {OPEN: open, SIGNED: signed}
  finding:
    tenant_via: {parent: report, columns: {report_id: report_id}}
    synonyms: {en: [finding, findings]}
    joins:
      - {to: report, "on": {report_id: report_id}}
    columns:
      severity:
        values: {NORMAL: normal, CRITICAL: critical}
"""


@pytest.fixture(scope="module")
def imaging(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    folder: Path = tmp_path_factory.mktemp("imaging")
    (folder / "systems").mkdir()
    (folder / "systems" / "imaging.yaml").write_text(SYSTEM, encoding="utf-8")
    return load_catalog(folder)


def test_the_number_unique_within_the_tenant_is_the_one_people_use(imaging: Catalog) -> None:
    assert natural_keys(imaging) == {"report": "report_no"}
    report = imaging.table("report")
    assert key_column(report, imaging).name == "report_no"
    assert key_column(report).name == "report_id"  # without the catalog: the primary key


def test_a_status_is_the_entitys_own_when_no_table_is_a_series_of_events(
    imaging: Catalog,
) -> None:
    # Findings have a nullable timestamp: details dated later, not events about the report.
    assert _series_for(imaging, "report") is None
    intent = parse("status of report 5012", imaging, lexicon_for(imaging), date(2026, 6, 30))
    sql = build_sql(intent, imaging, "2026-06-30")
    assert sql == "SELECT r.report_no, r.status FROM report AS r WHERE r.report_no = 5012"


def test_a_table_of_timed_states_is_a_series(tmp_path: Path) -> None:
    (tmp_path / "systems").mkdir()
    timed = SYSTEM.replace("told_at     timestamptz,", "told_at     timestamptz  NOT NULL,")
    (tmp_path / "systems" / "imaging.yaml").write_text(timed, encoding="utf-8")
    catalog = load_catalog(tmp_path)
    assert _series_for(catalog, "report").name == "finding"


EXAMS = """\
system: exams
title: Exams
purpose: Exams of each clinic.
ddl: |
  CREATE TABLE exam (
      exam_id     bigint       NOT NULL,
      clinic_id   integer      NOT NULL,
      modality    text         NOT NULL,
      roster_month date        NOT NULL,
      review      text         NOT NULL,
      done_at     timestamptz  NOT NULL,
      PRIMARY KEY (exam_id)
  );
tables:
  exam:
    tenant_column: clinic_id
    synonyms: {pt: [exame, exames], en: [exam, exams]}
    columns:
      modality:
        values: {DO: bone densitometry, RM: magnetic resonance}
        value_synonyms: {DO: [densitometria], RM: [ressonancia]}
      roster_month:
        synonyms: {pt: [mês da escala, mes], en: [roster month]}
      review:
        values: {AGREE: agreement, MAJOR: major disagreement}
        value_synonyms: {MAJOR: [discordância maior]}
"""


def exams_sql(tmp_path: Path, question: str) -> str:
    (tmp_path / "systems").mkdir(exist_ok=True)
    (tmp_path / "systems" / "exams.yaml").write_text(EXAMS, encoding="utf-8")
    catalog = load_catalog(tmp_path)
    intent = parse(question, catalog, lexicon_for(catalog), date(2026, 6, 30))
    return build_sql(intent, catalog, "2026-06-30")


def test_a_code_spelled_like_a_preposition_is_not_read_from_the_preposition(
    tmp_path: Path,
) -> None:
    assert "'DO'" not in exams_sql(tmp_path, "quantos exames do mês passado?")
    assert "modality = 'DO'" in exams_sql(tmp_path, "quantos exames de densitometria?")


def test_by_month_is_a_time_grain_even_when_a_column_is_called_month(tmp_path: Path) -> None:
    sql = exams_sql(tmp_path, "quantos exames por mês em 2026?")
    assert "date_trunc('month'" in sql and "roster_month AS" not in sql


def test_a_ranking_word_inside_a_values_name_ranks_nothing(tmp_path: Path) -> None:
    sql = exams_sql(tmp_path, "quantos exames com discordância maior em 2025?")
    assert "review = 'MAJOR'" in sql and "DESC" not in sql and "GROUP BY" not in sql
