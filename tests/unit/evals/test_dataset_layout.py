"""The evaluation sets by deployment and split: every case says its split and where it came
from, no question is asked twice in a deployment, and `--suite` picks the right files."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from orquestra.core.deployment import packaged_deployments
from orquestra.core.settings import Settings
from orquestra.evals.dataset import SPLITS, Case, DatasetError, Split, load_dataset
from orquestra.evals.runner import CaseResult
from orquestra.evals.suite_report import SuiteRun, write_suite_report
from orquestra.evals.suites import SuiteSet, resolve_suite
from orquestra.server.cli import build_parser
from orquestra.server.cli_run import _cmd_eval
from tests.deployment_cases import TENANTS

REPO = Path(__file__).resolve().parents[3]
DATASETS = REPO / "evals" / "datasets"
SHIPPED = [(path, load_dataset(path)) for path in sorted(DATASETS.glob("*/*.jsonl"))]
HELDOUT = ["clinics/heldout", "logistics/heldout", "logistics/paraphrases"]
HELDOUT += ["logistics/paraphrases_heldout2"]


def case(**fields: object) -> str:
    row = {"id": "a", "question": "x", "tenant": "101", "route": "chat"}
    return json.dumps({**row, "split": "dev", "origin": "paraphrases_dev7", **fields})


def write(folder: Path, name: str, *rows: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("missing", ["split", "origin"])
def test_a_dataset_case_must_say_its_split_and_origin(tmp_path: Path, missing: str) -> None:
    row = json.loads(case())
    del row[missing]
    path = write(tmp_path, "cases.jsonl", case(id="b"), json.dumps(row))
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert caught.value.message.startswith(f"{path}:2: {missing}: Field required")


def test_a_missing_dataset_file_is_a_named_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"nowhere\.jsonl: cannot read it"):
        load_dataset(tmp_path / "nowhere.jsonl")


@pytest.mark.parametrize(
    ("field", "value"),
    [("split", "train"), ("split", "Dev"), ("origin", "Paraphrases dev7"), ("origin", "")],
)
def test_a_bad_split_or_origin_names_the_dataset_file_and_line(
    tmp_path: Path, field: str, value: str
) -> None:
    path = write(tmp_path, "cases.jsonl", case(), case(id="b"), case(id="c", **{field: value}))
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert caught.value.code == "DATASET_INVALID"
    assert caught.value.message.startswith(f"{path}:3: {field}: ")


def test_shipped_datasets_sit_in_their_deployments_folder_one_split_a_file() -> None:
    assert not list(DATASETS.glob("*.jsonl"))  # none outside a deployment's folder
    assert {path.parent.name for path, _ in SHIPPED} == set(packaged_deployments())
    for path, cases in SHIPPED:
        assert len({c.split for c in cases}) == 1, path
        assert {c.tenant for c in cases} <= set(TENANTS[path.parent.name]), path


def _asked(c: Case) -> tuple[tuple[str, ...], str]:
    return tuple(c.messages), c.tenant


def _expects(c: Case) -> str:
    """What a case expects, beyond its question and tenant (source, split, origin aside)."""
    expected = c.model_dump(include={"route", "gold_sql", "answer_contains", "blocked_by"})
    return json.dumps({**expected, "complexity": c.complexity, "lang": c.lang}, sort_keys=True)


def test_no_dataset_question_is_asked_twice_within_a_deployment() -> None:
    """The same question by the same tenant is one case of one set; where two sets expect
    different things of it, both stay and each names the other (`conflicts_with`)."""
    asked: dict[tuple[str, tuple[tuple[str, ...], str]], list[Case]] = defaultdict(list)
    for path, cases in SHIPPED:
        for c in cases:
            asked[(path.parent.name, _asked(c))].append(c)
    for copies in asked.values():
        if len(copies) == 1:
            assert not copies[0].conflicts_with, copies[0].id
            continue
        assert len({_expects(c) for c in copies}) == len(copies), [c.id for c in copies]
        for c in copies:
            assert sorted(c.conflicts_with or []) == sorted(o.id for o in copies if o is not c)


def test_every_dataset_case_has_an_origin_and_the_held_out_sets_are_the_known_ones() -> None:
    held_out = sorted(
        f"{p.parent.name}/{p.stem}" for p, cases in SHIPPED if cases[0].split == "heldout"
    )
    assert held_out == HELDOUT
    origins = {c.origin for _, cases in SHIPPED for c in cases}
    assert "paraphrases_heldout2" in origins and "clinics_paraphrases_dev20" in origins


def test_a_suite_resolves_to_the_right_dataset_files() -> None:
    def names(suite: str) -> list[str]:
        return [s.name for s in resolve_suite(suite, DATASETS)]

    assert names("heldout") == HELDOUT
    assert names("clinics:heldout") == ["clinics/heldout"]
    assert names("logistics:project") == ["logistics/project"]
    logistics = names("logistics")
    assert logistics[:4] == ["logistics/project", *HELDOUT[1:]]
    assert logistics[4:7] == [f"logistics/paraphrases_dev{n}" for n in ("", "2", "3")]
    assert logistics[-1] == "logistics/paraphrases_dev20" and len(logistics) == 24
    every = names("all")
    assert sorted(every) == sorted(f"{p.parent.name}/{p.stem}" for p, _ in SHIPPED)
    assert sorted(names("project") + names("heldout") + names("dev")) == sorted(every)
    assert {s.split for s in resolve_suite("clinics:dev", DATASETS)} == {"dev"}


def test_a_suite_orders_and_filters_sets_by_split(tmp_path: Path) -> None:
    for name, split in [("dev10", "dev"), ("dev", "dev"), ("dev2", "dev"), ("b", "heldout")]:
        write(tmp_path / "shop", f"{name}.jsonl", case(split=split))
    write(tmp_path / "shop", "a.jsonl", case(split="project"))
    found = resolve_suite("shop", tmp_path)
    assert [s.path.stem for s in found] == ["a", "b", "dev", "dev2", "dev10"]
    assert [s.split for s in found] == ["project", "heldout", "dev", "dev", "dev"]
    assert [s.path.stem for s in resolve_suite("shop:dev", tmp_path)] == ["dev", "dev2", "dev10"]
    write(tmp_path / "other", "a.jsonl", case(split="project"))
    with pytest.raises(DatasetError) as caught:
        resolve_suite("other:heldout", tmp_path)
    assert caught.value.code == "EVAL_SUITE_EMPTY"


@pytest.mark.parametrize("name", ["nowhere", "logistics:train", "shop:dev", ""])
def test_an_unknown_suite_is_a_clear_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(DatasetError) as caught:
        resolve_suite(name, DATASETS)
    assert caught.value.code == "EVAL_SUITE_UNKNOWN"
    assert "logistics" in caught.value.message and ", ".join(SPLITS) in caught.value.message


def test_a_dataset_file_mixing_splits_is_refused_in_a_suite(tmp_path: Path) -> None:
    write(tmp_path / "shop", "mixed.jsonl", case(), case(id="b", split="heldout"))
    with pytest.raises(DatasetError, match=r"mixed\.jsonl: one split a file, found dev, heldout"):
        resolve_suite("shop", tmp_path)


def test_a_suite_report_sums_each_split_over_all_its_sets(tmp_path: Path) -> None:
    def run(stem: str, split: Split, *routes: str) -> SuiteRun:
        results = [
            CaseResult(f"{stem}-{n}", got, "chat", "simple", "pt", "101", "oi")
            for n, got in enumerate(routes)
        ]
        chosen = SuiteSet("shop", split, tmp_path / f"{stem}.jsonl")
        return SuiteRun(chosen, "offline", {"cases": len(results)}, results, {})

    runs = [run("a", "heldout", "chat"), run("b", "dev", "chat", "chat"), run("c", "dev", "x")]
    markdown = write_suite_report(tmp_path / "out", "shop:dev", runs)
    assert markdown == tmp_path / "out" / "suite-shop-dev.md"
    report = json.loads((tmp_path / "out" / "suite-shop-dev.json").read_text())
    assert list(report["splits"]) == ["shop:heldout", "shop:dev"]
    assert report["splits"]["shop:dev"]["cases"] == 3
    assert report["splits"]["shop:dev"]["route_accuracy"] == 0.6667
    assert report["sets"]["shop/c"] == {"split": "dev", "cases": 1}
    assert "| shop/b | dev | 2 |" in markdown.read_text()


def test_eval_takes_a_suite_or_a_dataset_not_both(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["eval", "--suite", "logistics:heldout"])
    assert (args.suite, args.dataset) == ("logistics:heldout", None)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["eval", "--suite", "all", "--dataset", "x.jsonl"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_eval_refuses_an_unknown_suite_or_another_deployment_before_running(
    monkeypatch: pytest.MonkeyPatch, hermetic_environment: None
) -> None:
    monkeypatch.chdir(REPO)
    parser = build_parser()
    unknown = parser.parse_args(["eval", "--suite", "heldout2"])
    with pytest.raises(DatasetError, match="unknown suite 'heldout2'"):
        _cmd_eval(unknown, Settings())
    other = parser.parse_args(["--deployment", "clinics", "eval", "--suite", "logistics:heldout"])
    with pytest.raises(DatasetError) as caught:
        _cmd_eval(other, Settings(deployment="clinics"))
    assert caught.value.code == "EVAL_SUITE_DEPLOYMENT"
    assert "runs sets of logistics" in caught.value.message
