"""Deployments: packaged names and folders resolve, profiles validate, errors name the file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from orquestra.core.deployment import DeploymentError, load_deployment, packaged_deployments
from orquestra.ddl_catalog import load_catalog
from orquestra.deployments import DEPLOYMENTS_DIR

LOGISTICS = DEPLOYMENTS_DIR / "logistics"


def profile_folder(tmp_path: Path, **changes: object) -> Path:
    """A deployment folder whose profile is the demo's with `changes` (None removes a key)."""
    document = yaml.safe_load((LOGISTICS / "profile.yaml").read_text(encoding="utf-8"))
    document["name"] = "acme"
    for key, value in changes.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    folder = tmp_path / "acme"
    folder.mkdir()
    (folder / "profile.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    return folder


def test_the_default_is_the_packaged_logistics_demo() -> None:
    deployment = load_deployment()
    assert deployment.name == "logistics" and deployment.root.parent == DEPLOYMENTS_DIR
    assert deployment.root == LOGISTICS
    assert "logistics" in packaged_deployments()
    catalog = load_catalog(deployment.catalog_dir)
    assert catalog.tenant_directory() is not None
    assert (deployment.catalog_dir / "examples.yaml").is_file()
    assert any((deployment.catalog_dir / "docs").glob("*.md"))
    assert deployment.guardrails_file is None  # the packaged rails


def test_labels_and_texts_fall_back_to_the_default_language(tmp_path: Path) -> None:
    folder = profile_folder(
        tmp_path,
        business={"pt": "Uma rede de lojas."},
        tenant={"pt": {"singular": "loja", "plural": "lojas"}},
        examples={"pt": ["quantas vendas hoje?"]},
        topics={},
    )
    profile = load_deployment(folder).profile
    assert profile.tenant_label("pt") == "loja"
    assert profile.tenant_label("en", plural=True) == "lojas"  # no English label: the default
    assert profile.tenant_label("pt-BR") == "loja"
    assert profile.text("business", "en") == "Uma rede de lojas."
    assert profile.example_questions("en") == ["quantas vendas hoje?"]
    assert profile.topic_phrases("pt") == []
    assert profile.language("fr") == "pt" and profile.language("en-US") == "en"
    assert profile.locale_for("en") == "en-US"


def test_a_folder_is_a_deployment_and_its_own_guardrails_are_found(tmp_path: Path) -> None:
    folder = profile_folder(tmp_path)
    shutil.copytree(LOGISTICS / "catalog", folder / "catalog")
    (folder / "guardrails.yaml").write_text("{}\n")
    deployment = load_deployment(str(folder))
    assert deployment.name == "acme" and deployment.root.parent != DEPLOYMENTS_DIR
    assert deployment.guardrails_file == folder.resolve() / "guardrails.yaml"
    assert len(load_catalog(deployment.catalog_dir).tables) == len(load_catalog().tables)


def test_unknown_name_or_folder_is_deployment_not_found(tmp_path: Path) -> None:
    with pytest.raises(DeploymentError) as caught:
        load_deployment("no-such-business")
    assert caught.value.code == "DEPLOYMENT_NOT_FOUND"
    assert "no-such-business" in caught.value.message and "logistics" in caught.value.message
    with pytest.raises(DeploymentError) as caught:
        load_deployment(tmp_path)  # a folder, but no profile.yaml in it
    assert caught.value.code == "DEPLOYMENT_NOT_FOUND"
    assert "profile.yaml" in caught.value.message


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"currency": "reais"}, "currency"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"default_language": "en", "languages": ["pt"]}, "default_language"),
        ({"tenant": {"en": {"singular": "store", "plural": "stores"}}}, "tenant"),
        ({"colour": "blue"}, "colour"),
        ({"name": "Not A Name"}, "name"),
        ({"languages": ["pt", "de"]}, "languages"),
        ({"business": None}, "business"),
    ],
)
def test_an_invalid_profile_names_the_file_and_the_field(
    tmp_path: Path, changes: dict, field: str
) -> None:
    folder = profile_folder(tmp_path, **changes)
    with pytest.raises(DeploymentError) as caught:
        load_deployment(folder)
    assert caught.value.code == "DEPLOYMENT_PROFILE_INVALID"
    assert str(folder / "profile.yaml") in caught.value.message
    assert field in caught.value.message


def test_a_profile_that_is_not_yaml_is_invalid(tmp_path: Path) -> None:
    (tmp_path / "profile.yaml").write_text("name: [unclosed\n")
    with pytest.raises(DeploymentError) as caught:
        load_deployment(tmp_path)
    assert caught.value.code == "DEPLOYMENT_PROFILE_INVALID"


def test_a_profile_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    folder = profile_folder(tmp_path)
    assert load_deployment(folder).profile.assistant_name == "Orquestra"
    path = folder / "profile.yaml"
    path.write_text(path.read_text().replace("assistant_name: Orquestra", "assistant_name: Ana"))
    assert load_deployment(folder).profile.assistant_name == "Ana"
