"""The engine registry (``gameserde.o3de.engine``): prefab and material files of our own making,
written in the engine's layout, are fixed points of load-store-write; files with deviations
normalise to them; unknown components pass through and are reported; wrong values are
reported at their JSON Pointer; and the command line types these files by default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gameserde import o3de
from gameserde.cli import main
from gameserde.errors import EncodeError
from gameserde.o3de.engine import (
    MATERIAL,
    PREFAB,
    AssetReference,
    Entity,
    Prefab,
    PrefabLink,
    UncheckedComponent,
    engine_registry,
)

DATA = Path(__file__).parent / "data"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "o3de"
EDITOR_TRANSFORM = "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0} TransformComponent"
LAMP = "Entity_[4206068507913]"
LAMP_TRANSFORM = "Component_[2390451633512432787]"


def normalised(path: Path, type_: str) -> tuple[str, o3de.Result]:
    reg = engine_registry()
    value, result = o3de.load(type_, o3de.parse(path.read_bytes()), registry=reg)
    out, stored = o3de.store(value, type_, registry=reg)
    assert not stored.issues
    return o3de.write(out), result


def load_prefab(doc: Any) -> tuple[Prefab, o3de.Result]:
    value, result = o3de.load(PREFAB, doc, registry=engine_registry())
    assert isinstance(value, Prefab)
    return value, result


def courtyard() -> Any:
    return o3de.parse((DATA / "courtyard.prefab").read_text())


@pytest.mark.parametrize(("name", "type_"), [("courtyard.prefab", PREFAB),
                                             ("stone.material", MATERIAL)])
def test_engine_shaped_files_are_fixed_points(name: str, type_: str) -> None:
    text = (DATA / name).read_text()
    written, result = normalised(DATA / name, type_)
    assert written == text
    assert result.issues == [] and not result.code.halted


@pytest.mark.parametrize(("unsaved", "saved", "type_"), [
    ("courtyard-unsaved.prefab", "courtyard.prefab", PREFAB),
    ("stone-unsaved.material", "stone.material", MATERIAL)])
def test_deviations_normalise_to_the_engine_s_file(unsaved: str, saved: str, type_: str) -> None:
    text = (DATA / unsaved).read_text()
    assert "//" in text and text != (DATA / saved).read_text()
    written, result = normalised(DATA / unsaved, type_)
    assert written == (DATA / saved).read_text()
    assert result.issues == []


def test_the_example_prefab_is_the_test_file() -> None:
    assert (EXAMPLES / "courtyard.prefab").read_text() == (DATA / "courtyard.prefab").read_text()


def test_a_prefab_loads_into_typed_values() -> None:
    prefab, _ = load_prefab(courtyard())
    assert prefab.container_entity is not None
    assert prefab.container_entity.id == "ContainerEntity"
    assert prefab.container_entity.name == "Courtyard"
    lamp = prefab.entities[LAMP]
    assert isinstance(lamp, Entity) and lamp.name == "Lamp" and lamp.runtime_active
    transform = lamp.components[LAMP_TRANSFORM]
    assert type(transform).__name__ == "AzToolsFramework__Components__TransformComponent"
    assert transform.Id == 2390451633512432787
    assert transform.Parent_Entity == "ContainerEntity"
    assert transform.Transform_Data.Translate == o3de.Vector3(1.5, -2.25, 3.0)
    assert transform.Transform_Data.UniformScale == 0.5
    assert transform.Transform_Data.Scale == o3de.Vector3(1.0, 1.0, 1.0)
    wrapper = lamp.components["Component_[9815637251107396432]"]
    assert wrapper.m_template.Locked is True and wrapper.m_template.Id == 77
    icon = lamp.components["Component_[5713413734566094116]"]
    assert icon.EntityIconAssetId.subId == 1000
    sort = prefab.container_entity.components["EditorEntitySortComponent"]
    assert sort.Child_Entity_Order == ["Entity_[4201773540617]", "Entity_[4206068507913]",
                                       "Instance_[6390243851017]/ContainerEntity"]
    link = prefab.instances["Instance_[6390243851017]"]
    assert isinstance(link, PrefabLink) and link.source == "Prefabs/Bench.prefab"
    assert [p["op"] for p in link.patches] == ["replace", "replace"]


def test_an_edited_prefab_is_written_as_the_editor_would() -> None:
    reg = engine_registry()
    prefab, _ = load_prefab(courtyard())
    transform = prefab.entities[LAMP].components[LAMP_TRANSFORM]
    transform.Transform_Data.Translate = o3de.Vector3(0.0, 0.0, 0.0)
    transform.Transform_Data.UniformScale = 0.1
    out, _ = o3de.store(prefab, registry=reg)
    data = out["Entities"][LAMP]["Components"][LAMP_TRANSFORM]["Transform Data"]
    assert data == {"Rotate": [0.0, 0.0, 90.0], "UniformScale": 0.10000000149011612}
    kept, _ = o3de.store(prefab, registry=reg, keep_defaults=True)
    entity = kept["Entities"][LAMP]
    assert list(entity) == ["Id", "Name", "Components", "IsRuntimeActive"]
    assert list(entity["Components"][LAMP_TRANSFORM]) == [
        "$type", "Id", "Parent Entity", "Transform Data", "Parent Activation Transform Mode",
        "IsStatic", "Sync Enabled", "InterpolatePosition", "InterpolateRotation"]
    assert entity["Components"][LAMP_TRANSFORM]["$type"] == EDITOR_TRANSFORM


def test_unknown_components_pass_through_and_are_reported() -> None:
    doc = courtyard()
    components = doc["Entities"][LAMP]["Components"]
    asset = {"assetId": {"guid": "{00000000-0000-0000-0000-00000000000A}"}}
    alien = {"$type": "MyGem::EditorFancyComponent", "Id": 42,
             "Controller": {"Configuration": {"ModelAsset": asset}}, "Odd": [1, 2.0, None]}
    components["Component_[42]"] = alien
    components["Component_[9815637251107396432]"]["m_template"] = {
        "$type": "{E2DC7EB8-1111-4B2C-9D3A-0000000000AA} CameraComponent", "Field Of View": 60.0}
    prefab, result = load_prefab(doc)
    assert not result.code.halted
    assert [(i.path, i.code.outcome.name) for i in result.issues] == [
        (f"/Entities/{LAMP}/Components/Component_[9815637251107396432]/m_template", "Unknown"),
        (f"/Entities/{LAMP}/Components/Component_[42]", "Unknown")]
    assert "MyGem::EditorFancyComponent" in result.issues[1].message
    assert prefab.entities[LAMP].components["Component_[42]"] == UncheckedComponent(alien)
    out, stored = o3de.store(prefab, registry=engine_registry())
    assert not stored.issues and o3de.json_equal(out, doc)
    written = out["Entities"][LAMP]["Components"]["Component_[42]"]
    assert written == alien and list(written) == list(alien)


def test_a_name_shared_by_two_types_needs_the_uuid() -> None:
    doc = courtyard()
    component = doc["Entities"][LAMP]["Components"][LAMP_TRANSFORM]
    component["$type"] = "TransformComponent"
    prefab, result = load_prefab(doc)
    assert [i.path for i in result.issues] == [f"/Entities/{LAMP}/Components/{LAMP_TRANSFORM}"]
    assert "names several registered types" in result.issues[0].message
    assert isinstance(prefab.entities[LAMP].components[LAMP_TRANSFORM], UncheckedComponent)


@pytest.mark.parametrize(("edit", "path", "outcome"), [
    (lambda c: c[LAMP_TRANSFORM]["Transform Data"].__setitem__("Translate", "up"),
     f"/Components/{LAMP_TRANSFORM}/Transform Data/Translate", "Unsupported"),
    (lambda c: c[LAMP_TRANSFORM].__setitem__("IsStatic", "maybe"),
     f"/Components/{LAMP_TRANSFORM}/IsStatic", "Unsupported"),
    (lambda c: c[LAMP_TRANSFORM].__setitem__("Id", -1),
     f"/Components/{LAMP_TRANSFORM}/Id", "Unsupported"),
    (lambda c: c["Component_[14622359103101457474]"].__setitem__("Visible", True),
     "/Components/Component_[14622359103101457474]/Visible", "Skipped"),
    (lambda c: c["Component_[5713413734566094116]"]["EntityIconAssetId"].__setitem__(
        "subId", 1.5e10), "/Components/Component_[5713413734566094116]/EntityIconAssetId/subId",
     "Unsupported"),
    (lambda c: c["Component_[12783356140231931468]"].__setitem__(
        "$type", "EditorTransform"),
     "/Components/Component_[12783356140231931468]", "TypeMismatch"),
])
def test_wrong_values_are_reported_at_their_json_pointer(edit: Any, path: str,
                                                         outcome: str) -> None:
    doc = courtyard()
    edit(doc["Entities"][LAMP]["Components"])
    _, result = load_prefab(doc)
    assert (f"/Entities/{LAMP}{path}", outcome) in [(i.path, i.code.outcome.name)
                                                    for i in result.issues]


def test_an_entity_without_an_id_halts_as_in_the_engine() -> None:
    doc = courtyard()
    del doc["Entities"][LAMP]["Id"]
    _, result = load_prefab(doc)
    assert result.code.halted
    assert (f"/Entities/{LAMP}", "Invalid") in [(i.path, i.code.outcome.name)
                                                for i in result.issues]
    assert "Invalid or missing entity ID" in result.issues[0].message


def test_members_the_engine_does_not_read_are_reported() -> None:
    doc = courtyard()
    doc["Entities"][LAMP]["IsDependencyReady"] = True
    doc["Extra"] = 1
    doc["Instances"]["Instance_[6390243851017]"]["Patches"].append({"op": "jump", "path": "/a"})
    prefab, result = load_prefab(doc)
    assert [(i.path, i.code.outcome.name) for i in result.issues] == [
        ("/Instances/Instance_[6390243851017]/Patches/2", "Invalid"),
        (f"/Entities/{LAMP}/IsDependencyReady", "Skipped"),
        ("/Extra", "Skipped")]
    assert len(prefab.instances["Instance_[6390243851017]"].patches) == 3


def test_older_component_arrays_become_maps() -> None:
    doc = courtyard()
    disabled = doc["Entities"][LAMP]["Components"]["Component_[3350960129851316390]"]
    disabled["DisabledComponents"] = [{"$type": "EditorLockComponent", "Id": 5, "Locked": True},
                                      {"$type": "Gem::Unknown", "Id": 6}]
    prefab, result = load_prefab(doc)
    component = prefab.entities[LAMP].components["Component_[3350960129851316390]"]
    assert sorted(component.DisabledComponents) == ["Component_[5]", "Component_[6]"]
    assert [i.code.outcome.name for i in result.issues] == ["Unknown"]
    out, _ = o3de.store(prefab, registry=engine_registry())
    stored = out["Entities"][LAMP]["Components"]["Component_[3350960129851316390]"]
    assert stored["DisabledComponents"] == {
        "Component_[5]": {"$type": "EditorLockComponent", "Id": 5, "Locked": True},
        "Component_[6]": {"$type": "Gem::Unknown", "Id": 6}}


def test_wrappers_without_a_template_are_dropped_as_in_the_engine() -> None:
    doc = courtyard()
    components = doc["Entities"][LAMP]["Components"]
    components["Component_[9815637251107396432]"]["m_template"] = None
    components["Component_[3350960129851316390]"]["DisabledComponents"] = {
        "Component_[8]": {"$type": "GenericComponentWrapper", "Id": 8},
        "Component_[9]": {"$type": "GenericComponentWrapper", "Id": 9,
                          "m_template": {"$type": "EditorLockComponent", "Id": 10}}}
    prefab, result = load_prefab(doc)
    assert result.issues == []
    lamp = prefab.entities[LAMP].components
    assert "Component_[9815637251107396432]" not in lamp
    assert list(lamp["Component_[3350960129851316390]"].DisabledComponents) == ["Component_[9]"]


def test_older_child_orders_are_converted_as_in_the_engine() -> None:
    doc = courtyard()
    sort = doc["ContainerEntity"]["Components"]["EditorEntitySortComponent"]
    order = sort.pop("Child Entity Order")
    sort["ChildEntityOrderEntryArray"] = [{"EntityId": order[1], "SortIndex": 1},
                                          {"EntityId": order[2], "SortIndex": 2},
                                          {"EntityId": order[0]}]
    crate = doc["Entities"]["Entity_[4201773540617]"]["Components"]
    crate["Component_[8121463510270593300]"].update({
        "Child Entity Order": ["Entity_[7]"],
        "ChildEntityOrderEntryArray": [{"EntityId": "Entity_[8]"}]})
    prefab, result = load_prefab(doc)
    assert result.issues == []
    out, _ = o3de.store(prefab, registry=engine_registry())
    expected = courtyard()
    expected["Entities"]["Entity_[4201773540617]"]["Components"][
        "Component_[8121463510270593300]"]["Child Entity Order"] = ["Entity_[7]"]
    assert o3de.write(out) == o3de.write(expected)


def test_a_prefab_without_a_container_entity_stays_without() -> None:
    prefab, result = load_prefab({})
    assert prefab.container_entity is None and not result.issues
    out, _ = o3de.store(prefab, registry=engine_registry())
    assert out == {}


@pytest.mark.parametrize(("json_value", "python", "written"), [
    (True, True, True), (7, 7, 7), (0.1, 0.10000000149011612, 0.10000000149011612),
    ([1.0, 2.0], o3de.Vector2(1.0, 2.0), [1.0, 2.0]),
    ([1.0, 2.0, 3.0], o3de.Vector3(1.0, 2.0, 3.0), [1.0, 2.0, 3.0]),
    ([1.0, 2.0, 3.0, 4.0], o3de.Vector4(1.0, 2.0, 3.0, 4.0), [1.0, 2.0, 3.0, 4.0]),
    ({"RGB8": [255, 0, 0]}, o3de.Color(1.0, 0.0, 0.0, 0.0), [1.0, 0.0, 0.0, 0.0]),
    ({"x": 1.0, "y": 2.0, "z": 3.0, "w": 4.0}, o3de.Vector4(1.0, 2.0, 3.0, 4.0),
     [1.0, 2.0, 3.0, 4.0]),
    ({"q": 1}, o3de.Vector4(0.0, 0.0, 0.0, 0.0), [0.0, 0.0, 0.0, 0.0]),
    ("Textures/a.png", "Textures/a.png", "Textures/a.png"),
])
def test_material_property_values(json_value: Any, python: Any, written: Any) -> None:
    reg = engine_registry()
    doc = {"materialType": "a.materialtype", "propertyValues": {"p": json_value}}
    material, result = o3de.load(MATERIAL, doc, registry=reg)
    assert result.issues == []
    assert material.propertyValues == {"p": python}
    out, _ = o3de.store(material, registry=reg)
    assert out["propertyValues"] == {"p": written}


@pytest.mark.parametrize(("json_value", "outcome"), [
    (None, "Unsupported"), ([1.0], "Unsupported"), (3_000_000_000, "Unsupported"),
    ([1.0, "x", 2.0], "Unsupported")])
def test_material_property_values_the_engine_refuses(json_value: Any, outcome: str) -> None:
    doc = {"propertyValues": {"a": 1.0, "p": json_value}}
    material, result = o3de.load(MATERIAL, doc, registry=engine_registry())
    assert ("/propertyValues/p", outcome) in [(i.path, i.code.outcome.name)
                                              for i in result.issues]
    assert material.propertyValues == {"a": 1.0}


def test_asset_references_in_a_component_of_one_s_own() -> None:
    reg = engine_registry()
    reg.add_class("MyGem::EditorSkyComponent", "{0F5D3C1A-7B2E-4C4D-9E8F-1A2B3C4D5E6F}",
                  [("Cubemap", "AZ::Data::Asset")],
                  bases=["AzToolsFramework::Components::EditorComponentBase"],
                  registered_name="EditorSkyComponent")
    json_value = {"$type": "EditorSkyComponent", "Id": 9, "Cubemap": {
        "assetId": {"guid": "{3FD09945-D0F2-55C8-B9AF-B2FD421FE3BE}", "subId": 3000},
        "loadBehavior": "PreLoad", "assetHint": "sky/goegap.exr.streamingimage"}}
    doc = {"Id": "Entity_[1]", "Components": {"Component_[9]": json_value}}
    entity, result = o3de.load("AZ::Entity", doc, registry=reg)
    assert result.issues == []
    asset = entity.components["Component_[9]"].Cubemap
    assert isinstance(asset, AssetReference)
    assert (asset.load_behavior, asset.hint, asset.asset_id.subId) == (
        0, "sky/goegap.exr.streamingimage", 3000)
    out, _ = o3de.store(entity, registry=reg)
    assert out == doc
    asset.load_behavior, asset.hint = 1, ""
    out, _ = o3de.store(entity, registry=reg)
    cubemap = out["Components"]["Component_[9]"]["Cubemap"]
    assert cubemap == {"assetId": json_value["Cubemap"]["assetId"]}
    _, result = o3de.load("AZ::Data::Asset", "sky.exr", registry=reg)
    assert result.code.outcome.name == "Unsupported"


_FLOAT32 = st.floats(-1e6, 1e6, width=32)


@settings(max_examples=60, deadline=None)
@given(translate=st.tuples(_FLOAT32, _FLOAT32, _FLOAT32), scale=_FLOAT32,
       name=st.text(max_size=12), locked=st.booleans(), visible=st.booleans())
def test_edited_transforms_round_trip(translate: tuple[float, float, float], scale: float,
                                      name: str, locked: bool, visible: bool) -> None:
    reg = engine_registry()
    prefab, _ = load_prefab(courtyard())
    lamp = prefab.entities[LAMP]
    lamp.name = name
    lamp.components[LAMP_TRANSFORM].Transform_Data.Translate = o3de.Vector3(*translate)
    lamp.components[LAMP_TRANSFORM].Transform_Data.UniformScale = scale
    lamp.components["Component_[7263840195398713347]"].Locked = locked
    lamp.components["Component_[14622359103101457474]"].VisibilityFlag = visible
    out, _ = o3de.store(prefab, registry=reg)
    again, result = o3de.load(PREFAB, o3de.parse(o3de.write(out)), registry=reg)
    assert result.issues == []
    assert again == prefab


# -- the command line -------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("verb", [["decode", "--pretty"], ["encode"]])
@pytest.mark.parametrize(("unsaved", "saved"), [
    ("courtyard-unsaved.prefab", "courtyard.prefab"),
    ("stone-unsaved.material", "stone.material")])
def test_cli_normalises_known_files_by_default(capsys: pytest.CaptureFixture[str],
                                               verb: list[str], unsaved: str,
                                               saved: str) -> None:
    code, out, err = run(capsys, *verb[:1], "o3de", *verb[1:], str(DATA / unsaved))
    assert (code, err) == (0, "")
    assert out == (DATA / saved).read_text()
    code, out, err = run(capsys, *verb[:1], "o3de", *verb[1:], str(DATA / saved))
    assert (code, out, err) == (0, (DATA / saved).read_text(), "")


def test_cli_registry_none_keeps_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    unsaved = DATA / "courtyard-unsaved.prefab"
    code, out, _ = run(capsys, "decode", "o3de", "--pretty", "--registry", "none", str(unsaved))
    assert code == 0 and out == o3de.write(o3de.parse(unsaved.read_text()))
    assert out != (DATA / "courtyard.prefab").read_text()
    code, _, err = run(capsys, "decode", "o3de", "--pretty", "--registry", "none", "--type", PREFAB,
                       str(unsaved))
    assert code == 2 and f"--type {PREFAB} names a type of a registry, but --schema none" in err


def test_cli_verify_reports_what_was_not_checked(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", "o3de", str(DATA / "courtyard.prefab"))
    assert code == 0 and f"loads as {PREFAB}" in out
    doc = courtyard()
    doc["Entities"][LAMP]["Components"]["Component_[42]"] = {"$type": "Gem::Thing", "Id": 42}
    path = tmp_path / "level.prefab"
    path.write_text(o3de.write(doc))
    code, _, err = run(capsys, "verify", "o3de", str(path))
    assert code == 1 and "Gem::Thing" in err
    assert f"at /Entities/{LAMP}/Components/Component_[42]: " in err
    code, out, _ = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert code == 0 and o3de.json_equal(o3de.parse(out), doc)
    path.write_text(out)
    assert run(capsys, "decode", "o3de", "--pretty", str(path))[1] == out
    code, out, _ = run(capsys, "inspect", "o3de", str(path))
    assert code == 1 and "issue Unknown" in out
    assert run(capsys, "verify", "o3de", "--registry", "none", str(path))[0] == 0


def test_cli_registry_engine_for_other_files(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "stone.json"
    path.write_text((DATA / "stone-unsaved.material").read_text())
    code, out, _ = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert code == 0 and out != (DATA / "stone.material").read_text()
    code, out, _ = run(capsys, "decode", "o3de", "--pretty", "--registry", "engine", "--type",
                       MATERIAL, str(path))
    assert code == 0 and out == (DATA / "stone.material").read_text()
    code, _, err = run(capsys, "decode", "o3de", "--pretty", "--registry", "engine", str(path))
    assert code == 2 and f"--schema engine needs --type for a file not named .prefab or " \
        f".material, the document's type: {PREFAB} (what a .prefab file holds), {MATERIAL} " in err
    code, _, err = run(capsys, "decode", "o3de", "--pretty", "--registry", "engine", "--type",
                       "Nope", str(path))
    assert code == 2 and "unknown type: Nope" in err


def test_cli_setreg_files_keep_text_rules(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "editor.setreg"  # trailing commas, which the registry's reader takes
    code, out, err = run(capsys, "decode", "o3de", "--pretty", str(path))
    assert (code, err) == (0, "")
    assert o3de.parse(out) == {"Amazon": {"Preferences": {"EnablePrefabSystem": True,
                                                           "GridSize": 0.5}}}


@pytest.mark.parametrize(("type_", "value"), [
    (PREFAB, {}), ("AZ::Entity", "Entity_[1]"), ("AZ::EntityId", 5),
    ("AzToolsFramework::Prefab::Link", 3), ("AZ::Data::Asset", "a.png")])
def test_python_values_of_another_type_do_not_store(type_: str, value: Any) -> None:
    with pytest.raises(EncodeError, match="is not a"):
        o3de.store(value, type_, registry=engine_registry())


def test_a_fresh_registry_each_call() -> None:
    first, second = engine_registry(), engine_registry()
    first.add_class("Mine", None, [])
    assert "Mine" not in second.classes
