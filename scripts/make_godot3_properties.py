"""The stored properties of Godot 3's resource classes, as the engine lists them, written to
``src/gameserde/godot/resource/godot3_properties.json``.

The engine's binary saver puts the name of every stored property of a resource in its string
table, those it then leaves out as defaults too; gameserde needs the list to write the
string table the engine writes when it converts a text file to binary
(``gameserde.godot.resource.classes``). This script asks Debian's ``godot3-server`` (Godot
3.2.3) for it: for each class that inherits ``Resource`` and can be made, a new instance's
``get_property_list()`` with ``PROPERTY_USAGE_STORAGE``, in its order.
tests/conformance/test_godot3_resources.py checks that the file holds what the engine says.

    python scripts/make_godot3_properties.py           # print the table
    python scripts/make_godot3_properties.py --write   # update the package's file
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TABLE = (Path(__file__).resolve().parents[1] / "src" / "gameserde" / "godot" / "resource"
         / "godot3_properties.json")

GDSCRIPT = """extends SceneTree

func _init():
\tvar out = {}
\tvar classes = Array(ClassDB.get_class_list())
\tclasses.sort()
\tfor c in classes:
\t\tif not ClassDB.is_parent_class(c, "Resource") or not ClassDB.can_instance(c):
\t\t\tcontinue
\t\tvar inst = ClassDB.instance(c)
\t\tif inst == null:
\t\t\tcontinue
\t\tvar names = []
\t\tfor p in inst.get_property_list():
\t\t\tif p.usage & PROPERTY_USAGE_STORAGE:
\t\t\t\tnames.append(p.name)
\t\tout[c] = names
\tprint("@@PROPERTIES ", to_json(out))
\tquit()
"""


def engine_properties(exe: str) -> dict[str, list[str]]:
    """The table, from the engine at ``exe``."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "project.godot").write_text("config_version=4\n")
        script = work / "properties.gd"
        script.write_text(GDSCRIPT)
        proc = subprocess.run([exe, "--no-window", "--path", tmp, "-s", str(script)],
                              cwd=tmp, env={**os.environ, "HOME": tmp}, capture_output=True,
                              text=True, timeout=120, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("@@PROPERTIES "):
            table: dict[str, list[str]] = json.loads(line.partition(" ")[2])
            return dict(sorted(table.items()))
    raise RuntimeError(f"{exe} did not list the properties:\n{proc.stdout}\n{proc.stderr}")


def text(table: dict[str, list[str]]) -> str:
    """The file's text: a class a line."""
    lines = [f"  {json.dumps(name)}: {json.dumps(names)}" for name, names in table.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {TABLE}")
    args = parser.parse_args()
    exe = shutil.which("godot3-server")
    if exe is None:
        sys.exit("godot3-server is not installed (apt-get install godot3-server)")
    out = text(engine_properties(exe))
    if args.write:
        TABLE.write_text(out, encoding="utf-8")
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
