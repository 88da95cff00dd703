"""Containers: sequences and sets, ``AZStd::array``, pair/tuple and the maps.

Loading appends to what the container holds (unless ``clear_containers``), each element read
as a new instance; an element that cannot be read is dropped. Storing compares every element
with a fresh default instance, so a default element is written as ``{}``; ``unordered_*``
outputs are sorted with O3DE's JSON ``Compare`` order.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable
from typing import Any

from gameserde.errors import EncodeError
from gameserde.o3de._context import NO_DEFAULT, LoadContext, StoreContext, is_object, members
from gameserde.o3de.registry import TypeExpr
from gameserde.o3de.result import Outcomes, ResultCode, Tasks
from gameserde.o3de.values import JsonPairs

__all__ = ["by_compare", "compare_key", "load_array", "load_map", "load_seq", "load_tuple",
           "report_unwritten", "store_array",
           "store_map", "store_seq", "store_tuple"]

_DEFAULT_KEY = "{}"


def compare_key(value: Any) -> tuple[Any, ...]:
    """A sort key giving ``JsonSerialization::Compare`` order: null < false < true < object <
    array < string < number; numbers as doubles, strings byte-wise, arrays by size then
    elements, objects by member count then members sorted by name."""
    if value is None:
        return (0,)
    if value is False:
        return (1,)
    if value is True:
        return (2,)
    if is_object(value):
        pairs = sorted(members(value), key=lambda kv: kv[0].encode("utf-8", "surrogatepass"))
        return (3, len(pairs), tuple((k.encode("utf-8", "surrogatepass"), compare_key(v))
                                     for k, v in pairs))
    if isinstance(value, list | tuple):
        return (4, len(value), tuple(compare_key(v) for v in value))
    if isinstance(value, str):
        return (5, value.encode("utf-8", "surrogatepass"))
    try:
        return (6, float(value))
    except OverflowError:
        return (6, float("inf") if value > 0 else float("-inf"))


def _python_order(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        return items


def _load_element(ctx: LoadContext, t: TypeExpr, value: Any) -> tuple[Any, ResultCode]:
    if t.kind == "pointer" and t.flavor == "raw":
        return ctx.load_pointer(t.args[0], None, value)
    return ctx.load(t, ctx.registry.create(t), value, True)


def _start(ctx: LoadContext, container: Any) -> tuple[bool, ResultCode]:
    """Before a container load: with ``clear_containers``, a container holding values is
    cleared (reported, and the reporter may refuse it). Whether to go on, and the code to
    start from (or to return)."""
    result = ResultCode.task_only(Tasks.ReadField)
    if not (container and ctx.clear_containers):
        return True, result
    code = ctx.report(Tasks.Clear, Outcomes.Success, "Clearing container.")
    if code.outcome is Outcomes.Success:
        container.clear()
        code = ctx.report(Tasks.Clear, Outcomes.Success, "Cleared container.")
    return code.completed, result.combine(code) if code.completed else code


def load_seq(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """``JsonBasicContainerSerializer::Load``: vector, list, fixed_vector and the sets."""
    if not isinstance(value, list | tuple):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. Basic containers can only be read from an "
                                   "array.")
    is_set = "set" in t.flavor and "multi" not in t.flavor
    container: Any = current if isinstance(current, set if is_set else list) else (
        set(current) if is_set else list(current))
    capacity = t.size if t.flavor == "fixed_vector" else None
    go_on, result = _start(ctx, container)
    if not go_on:
        return container, result
    start = len(container)
    element_type = t.args[0]
    for index, element in enumerate(value):
        ctx.push(index)
        try:
            if capacity is not None and len(container) + 1 > capacity:
                result = result.combine(ctx.report(
                    Tasks.ReadField, Outcomes.Skipped,
                    "Unable to load more entries in basic container because it's full."))
                break
            loaded, code = _load_element(ctx, element_type, element)
            if code.halted:
                return container, ctx.report_code(result, "Failed to read element for basic "
                                                          "container.")
            if code.altered:
                result = result.combine(code)
                continue
            if is_set:
                try:
                    duplicate = loaded in container
                    if not duplicate:
                        container.add(loaded)
                except TypeError:
                    duplicate = True
                if duplicate:
                    result = result.combine(ctx.report(Tasks.ReadField, Outcomes.Unavailable,
                                                       "Unable to store element to basic "
                                                       "container."))
                    continue
            else:
                container.append(loaded)
            result = result.combine(code)
        finally:
            ctx.pop()
    if not result.has_done_work and not value:
        return container, ctx.report(Tasks.ReadField, Outcomes.Success,
                                     "No values provided for basic container.")
    added = len(container) - start
    if added > 0:
        result = result.combine(ResultCode.of(Tasks.ReadField, Outcomes.Success))
    message = ("Successfully read basic container." if added >= len(value) else
               "Unable to read data for basic container." if added == 0 else
               "Partially read data for basic container.")
    return container, ctx.report_code(result, message)


def _iterable(ctx: StoreContext, value: Any, t: TypeExpr) -> list[Any]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise EncodeError(f"{type(value).__name__} is not a value of type {t.name}",
                          path="$." + ctx.path_text(), format="o3de")
    return list(value)


def _store_elements(ctx: StoreContext, t: TypeExpr, items: list[Any]
                    ) -> tuple[list[Any], ResultCode]:
    out: list[Any] = []
    result = ResultCode.task_only(Tasks.WriteValue)
    pointer = t.kind == "pointer" and t.flavor == "raw"
    for index, item in enumerate(items):
        ctx.push(index)
        try:
            stored, code = ctx.store_new_default(t.args[0] if pointer else t, item, pointer)
        finally:
            ctx.pop()
        if code.halted:
            return out, ctx.report_code(code, "Failed to store data for element in basic "
                                              "container.")
        out.append(stored)
        result = result.combine(code)
    return out, result


def _finish_container(ctx: StoreContext, out: list[Any], result: ResultCode, unwritten: int
                      ) -> tuple[Any, ResultCode]:
    """The end of ``JsonBasicContainerSerializer::Store``. ``unwritten`` is
    ``ctx.unwritten`` from before the elements were stored."""
    if result.halted:
        return {}, ctx.report_code(result, "Processing of basic container was halted.")
    if ctx.keep_defaults:
        if result.has_done_work:
            return out, ctx.report_code(result, "Content written to basic container.")
        return out, ctx.report(Tasks.WriteValue, Outcomes.Success,
                               "Empty array written because the provided basic container is "
                               "empty.")
    if result.has_done_work:
        result = result.combine(ResultCode.of(Tasks.WriteValue, Outcomes.Success))
        return out, ctx.report_code(result, "Content written to basic container.")
    if out and ctx.unwritten == unwritten:
        lost = report_unwritten(ctx, len(out))
        if lost.halted:
            return {}, lost
    return {}, ctx.report_code(result, "No values written because the basic container was empty.")


def report_unwritten(ctx: StoreContext, count: int) -> ResultCode:
    """A container holding ``count`` elements that the engine's "no work done" rule writes as
    nothing (each element is itself nothing: an empty container, an empty ``any``, an
    object of nothing else): reported Skipped, as it loads back without them. The code is
    not combined into the container's (the output and code stay the engine's); a reporter
    that returns a Halted code halts the store."""
    ctx.unwritten += 1
    return ctx.report(Tasks.WriteValue, Outcomes.Skipped,
                      f"{count} element(s) not written: each holds nothing but empty "
                      "containers (or empty AZStd::any values), so the engine writes this "
                      "container as if it were empty and it loads back without them.")


def store_seq(ctx: StoreContext, t: TypeExpr, value: Any) -> tuple[Any, ResultCode]:
    """``JsonBasicContainerSerializer::Store``; sets in C++ order, unordered ones sorted by
    ``Compare`` afterwards."""
    items = _iterable(ctx, value, t)
    if t.flavor in ("set", "multiset"):
        items = _python_order(items)
    unwritten = ctx.unwritten
    out, result = _store_elements(ctx, t.args[0], items)
    if "unordered" in t.flavor and not result.halted:
        out.sort(key=compare_key)
    return _finish_container(ctx, out, result, unwritten)


def _slots(ctx: StoreContext, t: TypeExpr, value: Any, count: int) -> list[Any]:
    items = _iterable(ctx, value, t)
    if len(items) != count:
        raise EncodeError(f"{t.name} holds {count} values, not {len(items)}",
                          path="$." + ctx.path_text(), format="o3de")
    return items


def _store_slots(ctx: StoreContext, types: list[TypeExpr], items: list[Any], defaults: Any,
                 failed: str) -> tuple[Any, ResultCode]:
    """The slots of a pair, tuple or ``AZStd::array``; the code combines the slots' codes (it
    may have no outcome when no slot did any work)."""
    result = ResultCode.task_only(Tasks.WriteValue)
    out: list[Any] = []
    for index, (slot_type, item) in enumerate(zip(types, items, strict=True)):
        slot_default = NO_DEFAULT if defaults is None else defaults[index]
        ctx.push(index)
        try:
            if slot_type.kind == "pointer" and slot_type.flavor == "raw":
                stored, code = ctx.store_pointer(slot_type.args[0], item, slot_default)
            else:
                stored, code = ctx.store(slot_type, item, slot_default)
        finally:
            ctx.pop()
        if code.halted:
            return {}, ctx.report_code(code, failed)
        out.append(stored)
        result = result.combine(code)
    return out, result


def store_tuple(ctx: StoreContext, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
    """``JsonTupleSerializer::Store``: slot by slot against the default's slots."""
    items = _slots(ctx, t, value, len(t.args))
    defaults = None if default is NO_DEFAULT else _slots(ctx, t, default, len(t.args))
    what = "AZStd::pair or AZStd::tuple"
    out, result = _store_slots(ctx, list(t.args), items, defaults,
                               f"Failed to store data for {what} element.")
    if result.halted:
        return out, result
    if ctx.keep_defaults or result.outcome is not Outcomes.DefaultsUsed:
        return out, ctx.report_code(result, f"{what} written.")
    return {}, ctx.report_code(result, f"{what} not written because only defaults were found.")


def store_array(ctx: StoreContext, t: TypeExpr, value: Any, default: Any) -> tuple[Any, ResultCode]:
    """``JsonArraySerializer::Store``: slot by slot against the default's slots. Unlike a
    tuple it writes nothing whenever the slots' code reads DefaultsUsed, even with
    ``keep_defaults`` (slots of empty ``any`` values), and then reports DefaultsUsed itself,
    so an array of nothing counts as work done in an enclosing container. Slots that are not
    the default's (or a new array's) are then lost, objects of nothing in pointers say:
    reported Skipped, as a basic container of such elements is."""
    items = _slots(ctx, t, value, t.size)
    defaults = None if default is NO_DEFAULT else _slots(ctx, t, default, t.size)
    unwritten = ctx.unwritten
    out, result = _store_slots(ctx, [t.args[0]] * t.size, items, defaults,
                               "Failed to store data for element from AZStd::array.")
    if result.halted:
        return out, result
    if result.outcome is not Outcomes.DefaultsUsed:
        return out, ctx.report_code(result, "Content written from AZStd::array.")
    baseline = defaults if defaults is not None else list(ctx.registry.create(t))
    if ctx.unwritten == unwritten and items != baseline:
        lost = report_unwritten(ctx, t.size)
        if lost.halted:
            return {}, lost
    return {}, ctx.report(Tasks.WriteValue, Outcomes.DefaultsUsed,
                          "No content written from AZStd::array because only defaults were "
                          "found.")


def _load_slot(ctx: LoadContext, t: TypeExpr, current: Any, value: Any, new: bool
               ) -> tuple[Any, ResultCode]:
    if t.kind == "pointer" and t.flavor == "raw":
        return ctx.load_pointer(t.args[0], current, value)
    return ctx.load(t, current, value, new)


def load_tuple(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """``JsonTupleSerializer::Load``: an array with at least one entry per slot; an entry
    that cannot be read is skipped and the next one tried for the same slot."""
    slots = list(current) if isinstance(current, list | tuple) and len(current) == len(t.args) \
        else list(ctx.registry.create(t))
    result = ResultCode.task_only(Tasks.ReadField)
    if is_object(value) and len(value) == 0:
        for index, slot_type in enumerate(t.args):
            ctx.push(index)
            try:
                slots[index], code = _load_slot(ctx, slot_type, slots[index], {}, True)
            finally:
                ctx.pop()
            result = result.combine(code)
            if code.halted:
                return current, ctx.report_code(result, "Failed to read element for AZStd::pair "
                                                        "or AZStd::tuple.")
        return tuple(slots), ctx.report_code(result, "Initialized AZStd::pair or AZStd::tuple to "
                                                     "defaults.")
    if not isinstance(value, list | tuple):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. AZStd::pair or AZStd::tuple can only be "
                                   "read from an array.")
    if len(value) < len(t.args):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Not enough entries in array to load an AZStd::pair or "
                                   "AZStd::tuple from.")
    position, written = 0, 0
    for index, slot_type in enumerate(t.args):
        ctx.push(index)
        try:
            while position < len(value):
                loaded, code = _load_slot(ctx, slot_type, slots[index], value[position], False)
                result = result.combine(code)
                position += 1
                if code.halted:
                    return tuple(slots), ctx.report_code(result, "Failed to read element for "
                                                                 "AZStd::pair or AZStd::tuple.")
                if not code.altered:
                    slots[index] = loaded
                    written += 1
                    break
        finally:
            ctx.pop()
    message = ("Successfully read AZStd::pair or AZStd::tuple." if written >= len(t.args) else
               "Unable to read data for AZStd::pair or AZStd::tuple." if written == 0 else
               "Partially read data for AZStd::pair or AZStd::tuple.")
    return tuple(slots), ctx.report_code(result, message)


def load_array(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """``AZStd::array<T, N>``: at least N entries (more are skipped); ``{}`` on a new
    instance fills every slot with its default."""
    slots = list(current) if isinstance(current, list | tuple) and len(current) == t.size \
        else list(ctx.registry.create(t))
    result = ResultCode.task_only(Tasks.ReadField)
    explicit_default = is_object(value) and len(value) == 0
    if not explicit_default and not isinstance(value, list | tuple):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. AZStd::array can only be read from an "
                                   "array.")
    if not explicit_default and len(value) < t.size:
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Not enough entries in JSON array to load an AZStd::array from.")
    for index in range(t.size):
        ctx.push(index)
        try:
            element = {} if explicit_default else value[index]
            slots[index], code = _load_slot(ctx, t.args[0], slots[index], element, True)
        finally:
            ctx.pop()
        result = result.combine(code)
        if code.halted:
            return slots, ctx.report_code(result, "Failed to read element for AZStd::array.")
    if not explicit_default and len(value) > t.size:
        result = result.combine(ctx.report(Tasks.ReadField, Outcomes.Skipped,
                                           "Too many entries in JSON array for AZStd::array; "
                                           "the rest was skipped."))
    return slots, ctx.report_code(result, "Read AZStd::array.")


# -- maps -------------------------------------------------------------------------------------


def _load_map_element(ctx: LoadContext, t: TypeExpr, container: Any, key_json: Any,
                      value_json: Any, multi: bool) -> ResultCode:
    key_type, value_type = t.args
    key, key_code = _load_element(ctx, key_type, key_json)
    if key_code.halted:
        return ctx.report_code(key_code, "Failed to read key for associative container.")
    exists = False
    target = ctx.registry.create(value_type)
    if not multi:
        try:
            exists = key in container
        except TypeError:
            return ctx.report(Tasks.ReadField, Outcomes.Unavailable,
                              "The key can't be used in a Python dict (it is unhashable).")
        if exists:
            target = container[key]
    if value_type.kind == "pointer" and value_type.flavor == "raw":
        loaded, value_code = ctx.load_pointer(value_type.args[0], None, value_json)
    else:
        loaded, value_code = ctx.load(value_type, target, value_json, True)
    if value_code.halted:
        return ctx.report_code(value_code, "Failed to read value for associative container.")
    if key_code.altered or value_code.altered:
        return ctx.report(Tasks.ReadField, Outcomes.Unavailable,
                          "Unable to fully process an element for the associative container.")
    if multi:
        container.append((key, loaded))
    else:
        container[key] = loaded
    code = key_code.combine(value_code)
    return ctx.report_code(code, "Successfully loaded an entry into the associative container."
                           if code.completed else
                           "Partially loaded an entry into the associative container.")


def _load_entry(ctx: LoadContext, t: TypeExpr, container: Any, key_json: Any, value_json: Any
                ) -> ResultCode:
    if "multi" not in t.flavor:
        return _load_map_element(ctx, t, container, key_json, value_json, False)
    if isinstance(value_json, list | tuple):
        result = ResultCode.task_only(Tasks.ReadField)
        for entry in value_json:
            result = result.combine(_load_map_element(ctx, t, container, key_json, entry, True))
            if result.halted:
                return ctx.report_code(result, "Unable to process the key or all values in "
                                               "multi-map.")
        return ctx.report_code(result, "Successfully loaded values for key in multi-map")
    if is_object(value_json) and len(value_json) == 0:
        return _load_map_element(ctx, t, container, key_json, value_json, True)
    return ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                      "Values for multi-maps need to be stored in an array.")


def load_map(ctx: LoadContext, t: TypeExpr, current: Any, value: Any) -> tuple[Any, ResultCode]:
    """``JsonMapSerializer::Load``: an object (member names are keys, ``"{}"`` the default
    key) or an array of ``{"Key": k, "Value": v}``; an existing key gets the new value."""
    multi = "multi" in t.flavor
    if not (is_object(value) or isinstance(value, list | tuple)):
        return current, ctx.report(Tasks.ReadField, Outcomes.Unsupported,
                                   "Unsupported type. Associative containers can only be read "
                                   "from an array or object.")
    if multi:
        container: Any = current if isinstance(current, list) else list(current or [])
    else:
        container = current if isinstance(current, dict) else dict(current or {})
    go_on, result = _start(ctx, container)
    if not go_on:
        return container, result
    start = len(container)
    if is_object(value):
        entries = members(value)
        for name, member in entries:
            ctx.push(name)
            try:
                code = _load_entry(ctx, t, container, {} if name == _DEFAULT_KEY else name, member)
            finally:
                ctx.pop()
            if code.halted:
                return container, code
            result = result.combine(code)
        total = len(entries)
    else:
        total = len(value)
        if not total:
            return container, ctx.report_code(
                result if result.has_done_work else ResultCode.of(Tasks.ReadField,
                                                                   Outcomes.Success),
                "No values provided for map.")
        for index, entry in enumerate(value):
            ctx.push(index)
            try:
                if not is_object(entry):
                    result = result.combine(ctx.report(
                        Tasks.ReadField, Outcomes.Unsupported,
                        'Unsupported type for elements in an associative container. If the array '
                        'for is used, an object with "Key" and "Value" is expected'))
                    continue
                fields = members(entry)
                key_json: Any = next((v for k, v in fields if k == "Key"), {})
                value_json: Any = next((v for k, v in fields if k == "Value"), {})
                code = _load_entry(ctx, t, container, key_json, value_json)
            finally:
                ctx.pop()
            if code.halted:
                return container, code
            result = result.combine(code)
    added = len(container) - start
    if added > 0:
        result = result.combine(ResultCode.of(Tasks.ReadField, Outcomes.Success))
    message = "Read associative container." if added >= total else (
        "Unable to read data for the associative container." if added == 0 else
        "Partially read data for the associative container.")
    return container, ctx.report_code(result, message)


def _pairs(ctx: StoreContext, t: TypeExpr, value: Any) -> list[tuple[Any, Any]]:
    if isinstance(value, dict):
        pairs = list(value.items())
    else:
        pairs = [tuple(p) if isinstance(p, list | tuple) else () for p in _iterable(ctx, value, t)]
        if any(len(p) != 2 for p in pairs):
            raise EncodeError(f"a {t.name} is a dict or a list of (key, value) pairs",
                              path="$." + ctx.path_text(), format="o3de")
    if not t.flavor.startswith("unordered"):
        with contextlib.suppress(TypeError):
            pairs = sorted(pairs, key=lambda kv: kv[0])
    return pairs


def by_compare(a: tuple[str, Any], b: tuple[str, Any]) -> int:
    """``Compare`` order of two (name, value) members: by name, then by value."""
    ka, kb = compare_key(a[0]), compare_key(b[0])
    if ka == kb:
        va, vb = compare_key(a[1]), compare_key(b[1])
        return (va > vb) - (va < vb)
    return (ka > kb) - (ka < kb)


def store_map(ctx: StoreContext, t: TypeExpr, value: Any) -> tuple[Any, ResultCode]:
    """``JsonMapSerializer::Store``: an object when every key is a string or default, else an
    array of ``{"Key", "Value"}``; unordered maps sorted; multimaps group values in arrays."""
    pair_type = TypeExpr("tuple", f"pair<{t.args[0]},{t.args[1]}>", t.args, flavor="pair")
    pairs = _pairs(ctx, t, value)
    unwritten = ctx.unwritten
    entries, result = _store_elements(ctx, pair_type, pairs)
    out, code = _finish_container(ctx, entries, result, unwritten)
    if code.halted or not isinstance(out, list):
        return out, code
    if ctx.keep_defaults and not out:
        return [], code
    sort = t.flavor.startswith("unordered")
    if all((isinstance(e, list) and (isinstance(e[0], str) or _is_default(e[0])))
           or _is_default(e) for e in out):
        items = [(_DEFAULT_KEY if _is_default(e) or _is_default(e[0]) else e[0],
                  {} if _is_default(e) else e[1]) for e in out]
        if sort:
            items.sort(key=functools.cmp_to_key(by_compare))
        if "multi" in t.flavor and not (len(items) == 1 and _is_default(items[0][1])):
            items = _group(items)
        return _object(items), code
    rows: list[Any] = [{"Key": e[0], "Value": e[1]} if isinstance(e, list) else
                       {"Key": {}, "Value": {}} for e in out]
    if sort:
        rows.sort(key=compare_key)
    if "multi" in t.flavor and not (len(rows) == 1 and _is_default(rows[0]["Value"])):
        rows = [{"Key": k, "Value": v} for k, v in _group([(r["Key"], r["Value"]) for r in rows])]
    return rows, code


def _is_default(value: Any) -> bool:
    return is_object(value) and len(value) == 0


def _group(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    grouped: list[tuple[Any, Any]] = []
    for key, item in items:
        if grouped and compare_key(grouped[-1][0]) == compare_key(key):
            grouped[-1][1].append(item)
        else:
            grouped.append((key, [item]))
    return grouped


def _object(items: list[tuple[str, Any]]) -> Any:
    names = [k for k, _ in items]
    if len(set(names)) == len(names):
        return dict(items)
    return JsonPairs(items)
