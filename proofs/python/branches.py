"""The runtime of the rewritten user code (proofs/python/rewrite.py): `__vx__` in its globals.

Outside a symbolic run every function here does what the construct it replaces does, on the
same values (a concrete run pays a function call per construct). In a symbolic run (a context
of proofs/python/values.py is active):

- a test of a symbolic condition is that condition (`test`); `branch` runs both branches of
  an `if` as functions of the names they assign, the condition pushed as a guard, and merges
  the names with if-then-else (facade.merge). Where the values cannot be merged (two lists, a
  value and None, an exception in a branch that can run), `Escalate` names the construct's
  site: the run is restarted with that site *split* (its test decided both ways by the
  exploring context of paths.py);
- a store (`t[k] = v`, `o.a = v`) inside a merged branch stores `merge(guard, v, old)`;
  a call that mutates its object (list.append, heapq.heappush ...) inside one escalates;
- a symbolic index into a list or tuple is a merged read or write; `range(n)` of a symbolic n
  iterates up to n's bound with the rounds past n stopped (`iterate`);
- `and`/`or` in a test give its truth only (`all_of`, `any_of`), a loop's break flag stays one
  comparison deep (`_merge_flag`), and a loop's temporaries are not merged across rounds
  (`branch`'s `dead`): what keeps a step's run linear in VLMAX with a small constant;
- an exception of the checker's own code inside a merged branch is an InternalError (an
  ERROR), never a reason to explore the branch.
"""

from __future__ import annotations

import builtins
import collections
import operator
import os

import vredmax
from vredmax.proofs.python import runcontext, values as V
from vredmax.proofs.python.facade import CannotMerge, merge as merge_values
from vredmax.proofs.python.symbytes import (
    Choice,
    SymBytes,
    method as symbytes_method,
    register_file as symbytes_register_file,
)
from vredmax.spec.state import NUM_VREGS

V.internal(__file__)

slice = builtins.slice


class Escalate(BaseException):
    """A merge that cannot be made: the run is restarted with `sites` split (explored)."""

    def __init__(self, sites, why: str = ""):
        super().__init__(why)
        self.sites = list(sites) if isinstance(sites, list) else [sites]
        self.why = why


class InternalError(RuntimeError):
    """A failure of the checker's own code during a symbolic run (not of the user's): an
    ERROR, never a reason to explore a branch or to drop it."""


# What the symbolic values and this runtime raise on purpose, as Python raises them on ints
# (an index out of range, a division by zero, a name bound on some paths only, ...); any
# other exception whose innermost frame is the checker's own code or z3 is a bug of the checker.
_AS_PYTHON = (
    IndexError,
    KeyError,
    ZeroDivisionError,
    UnboundLocalError,
    ValueError,
    OverflowError,
    AssertionError,
    TypeError,
    StopIteration,
    RecursionError,
    MemoryError,
    V.Refusal,
)


def internal_bug(error: BaseException):
    """An InternalError for `error` when it is a bug of the checker, else None."""
    if isinstance(error, _AS_PYTHON) or not isinstance(error, Exception):
        return None
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(
            (os.path.abspath(tb.tb_frame.f_code.co_filename), tb.tb_lineno, tb.tb_frame.f_code.co_name)
        )
        tb = tb.tb_next
    # A proxy's __getattr__ (MaybeUnbound, a machine's) passes an attribute read on to the
    # value it stands for: the read is of the frame that asked the proxy, the user's code or
    # the checker's own.
    while len(frames) > 1 and frames[-1][2] == "__getattr__" and _internal(frames[-1][0]):
        frames.pop()
    if not frames or not _internal(frames[-1][0]):
        return None  # raised by the user's code (or a library it called)
    name, last_line, _ = frames[-1]
    return InternalError(
        f"check-impl's own code failed (not the implementation) at "
        f"{os.path.basename(name)}:{last_line}: {type(error).__name__}: {error}"
    )


def _internal(path: str) -> bool:
    """Is `path` (absolute) the checker's own code or z3's?"""
    return path in runcontext.INTERNAL_FILES or bool(
        runcontext._Z3_DIR and path.startswith(runcontext._Z3_DIR)
    )


class _Sentinel:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


UNBOUND = _Sentinel("<unbound>")  # a name not bound before a branch
UNSET = _Sentinel("<no return value>")  # the return value before a return (don't care)
ABANDONED = _Sentinel("<abandoned branch>")


def _cx():
    return runcontext._ACTIVE[-1] if runcontext._ACTIVE else None


def _symbolic(x) -> bool:
    return type(x) is V.SymInt or type(x) is V.SymBool


# Tests and branches -------------------------------------------------------------------------


def test(value, site):
    """The truth of an `if`/`while` test: a Python bool, or a SymBool while proving."""
    cx = _cx()
    if cx is None:
        return bool(value)
    cond = V.truth(value) if _symbolic(value) else value.truth() if type(value) is Filtered else bool(value)
    if type(cond) is V.SymBool and cx.is_split(site):
        why = cx.split_reason(site)  # (only an exploring context splits a site)
        return cx.decide(cond, "the test of a branch that cannot be merged" + (f" ({why})" if why else ""))
    return cond


def decide(cond, site):
    """A test that is taken one way at a time (a branch whose form cannot be merged)."""
    if type(cond) is V.SymBool:
        return _cx().decide(cond, "a branch with a return, break or continue inside try or with")
    return cond


def out(loc, names):
    return tuple(loc.get(n, UNBOUND) for n in names)


def branch(cond, then_fn, else_fn, loc, names, site, dead=()):
    """Both branches of an `if` on a symbolic condition, their names merged (module docstring).
    `dead`: names whose value from where the branch does not run is never read (a loop's
    temporaries, rewrite.py `_dead_at_back_edge`): they keep the branch's value."""
    cx = _cx()
    before = out(loc, names)
    then_values = _guarded(cx, cond, lambda: then_fn(*_read_under_guards(cx, before)), site)
    else_values = _guarded(cx, _negate(cond), lambda: else_fn(*_read_under_guards(cx, before)), site)
    if then_values is ABANDONED:
        return else_values if else_values is not ABANDONED else before
    if else_values is ABANDONED:
        return then_values
    try:
        return tuple(
            a if name in dead else merge(cx, cond, a, b, name)
            for a, b, name in zip(then_values, else_values, names)
        )
    except CannotMerge as error:
        raise Escalate(site, f"the branches leave {error} to merge") from None


def _negate(cond):
    return V.make_bool(cond.cx, cond.bk, cond.bk.not_(cond.t))


def _guarded(cx, cond, run, site):
    """run() under the guard `cond`: its result, or ABANDONED when it failed where the
    guard cannot hold; a failure where it can is an Escalate (the branch is explored)."""
    refusals = len(cx.refusals)
    cx.push_guard(cond, site)
    try:
        return run()
    except (Escalate, InternalError, KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:
        bug = internal_bug(error)
        if bug is not None:  # never read as "this branch cannot be merged"
            raise bug from error
        if not cx.feasible_guards():
            del cx.refusals[refusals:]  # a refusal where nothing can run is no refusal
            return ABANDONED
        if isinstance(error, V.Refusal) or site is None:  # (None: a comprehension's element, no
            raise  # site to explore: the user's error)
        raise Escalate(site, f"{type(error).__name__} in a branch") from None
    finally:
        cx.pop_guard()


def merge(cx, cond, a, b, name=""):
    """`a if cond else b` for the values two branches left (UNSET: either; UNBOUND: a value
    bound on one path only, which raises UnboundLocalError where it is not, when used)."""
    if a is UNSET:
        return b
    if b is UNSET or a is b:
        return a
    if a is UNBOUND or b is UNBOUND or type(a) is MaybeUnbound or type(b) is MaybeUnbound:
        (bound_a, a), (bound_b, b) = _binding(a), _binding(b)
        bound = V.merge_bools(cx, cond, bound_a, bound_b)
        value = a if b is UNBOUND else b if a is UNBOUND else merge_values(cx, cond, a, b)
        return value if bound is True else UNBOUND if bound is False else MaybeUnbound(name, bound, value)
    if type(a) is V.SymBool or type(b) is V.SymBool:
        return _merge_flag(cx, cond, a, b)
    merged = merge_values(cx, cond, a, b)
    if type(merged) is V.SymInt and _live_guard(cx, cond):
        cx.__dict__.setdefault("_merged_at_live", {})[id(merged)] = (merged, cond, a, b)
    return merged


def _live_guard(cx, cond) -> bool:
    """Is `cond` a loop round's `not flag` (live(), one flag)?"""
    negated = cx.__dict__.get("_live_of", {}).get(id(cond))
    return negated is not None and negated[0] is cond


def _read_under_guards(cx, values):
    """The names a branch gets, each read under the guard of the code about to run it.
    A value merged at a `not flag` guard of a loop (the index after a `break`: `i + 1` where
    the round ran, `i` where it broke) is, inside a later round, the value of the way the
    round's own guard implies (the round runs where no break happened before it): code
    there sees the concrete index again (a bytes slice at `i * nb`), and its terms stay one
    round deep. Only the guard just pushed is asked: the names were computed under the
    others, and read under them already. Sound: what the branch computes is used only where
    its guards hold (merged with them, or a temporary never read elsewhere)."""
    table = cx.__dict__.get("_merged_at_live")
    implies = getattr(cx, "implies", None)
    if not table or implies is None or not cx.guards:
        return values
    guard = cx.guards[-1]
    if type(guard) is not V.SymBool or not _live_guard(cx, guard):
        return values
    return tuple(_under(table, guard, implies, v) for v in values)


def _under(table, guard, implies, value):
    while type(value) is V.SymInt:
        entry = table.get(id(value))
        if entry is None or entry[0] is not value:
            return value
        _, cond, a, b = entry
        if not (cond is guard or implies(guard, cond)):
            return value  # (where the guard implies `flag`, the round cannot run)
        value = a
    return value


def _merge_flag(cx, cond, a, b):
    """`a if cond else b` of bools, kept shallow: a loop's `break` flag would otherwise grow
    by one `or` per round (brk_i = c_i or brk_(i-1)), and the conditions the proof compares
    with the spec's with it. For the rounds' guards `not flag` (live(), which records them):
    - where the merged value is used (under the guards of the branches being run), a flag
      that a guard negates is False;
    - `a if not b else b` is `a or b`, which is `a` when b implies a (i-1 >= vl implies
      i >= vl), asked of the solver."""
    lives = cx.__dict__.get("_live_of")
    if not lives:
        return merge_values(cx, cond, a, b)
    a, b = _fixed_by_guards(cx, lives, a), _fixed_by_guards(cx, lives, b)
    negated = lives.get(id(cond))
    if (
        negated is not None
        and negated[0] is cond
        and negated[1] is b
        and type(a) is V.SymBool
        and a.bk is b.bk
    ):
        if getattr(cx, "implies", None) is not None and cx.implies(b, a):
            return a
        return V.bool_or(a, b)
    return merge_values(cx, cond, a, b)


def _fixed_by_guards(cx, lives, flag):
    if type(flag) is not V.SymBool:
        return flag
    for guard in cx.guards:
        negated = lives.get(id(guard))
        if negated is not None and negated[0] is guard and negated[1] is flag:
            return False
    return flag


def _binding(value):
    """(where it is bound, its value) of a merged name."""
    if value is UNBOUND:
        return False, UNBOUND
    if type(value) is MaybeUnbound:
        return object.__getattribute__(value, "_bound"), object.__getattribute__(value, "_value")
    return True, value


def live(*flags):
    """`not any(flags)`: whether the statements after a return/break/continue still run."""
    result = True
    symbolic = []
    for flag in flags:
        if flag is True:
            return False
        if type(flag) is V.SymBool:
            result = V.bool_and(result, _negate(flag))
            symbolic.append(flag)
    if len(symbolic) == 1:  # `not flag`: known to _merge_flag by the objects themselves
        _cx().__dict__.setdefault("_live_of", {})[id(result)] = (result, symbolic[0])
    return result


def result(ret, value, sites):
    """A rewritten function's return value: `value` where a return ran, None elsewhere."""
    if ret is True:
        return None if value is UNSET else value
    if ret is False:
        return None
    if value is None or value is UNSET:
        return None
    cx = _cx()
    if not cx.possible(_negate(ret)):  # every path returned (the flag is true, not as a term)
        return value
    try:
        return merge_values(cx, ret, value, None)
    except CannotMerge:
        raise Escalate(
            list(sites), "a function that returns a value on some paths and None on others"
        ) from None


def while_stop(value, site, *flags):
    """`not test` of a while round; a symbolic test keeps the loop going, at most ROUNDS times.
    `flags`: the loop's break (and return) flags, the round runs only where none is set."""
    cx = _cx()
    t = test(value, site)
    if type(t) is not V.SymBool:
        return not t
    runs = live(*flags)
    if runs is False or not cx.possible(t if runs is True else V.bool_and(runs, t)):
        # no input reaches another round (a bound such as `i < n` with i merged from the
        # rounds before: its value range alone cannot show the loop is over; where the
        # index can still be below n, a break may have ended the loop already)
        return True
    cx.count_round(site)
    return _negate(t)


# Expressions ----------------------------------------------------------------------------------


def ifexp(cond, then_fn, else_fn, site):
    cx = _cx()
    t = test(cond, site)
    if type(t) is not V.SymBool:
        return then_fn() if t else else_fn()
    a = _guarded(cx, t, then_fn, site)
    b = _guarded(cx, _negate(t), else_fn, site)
    return _merged(cx, t, a, b, site)


def _merged(cx, t, a, b, site):
    if a is ABANDONED:
        return b
    if b is ABANDONED:
        return a
    try:
        return merge_values(cx, t, a, b)
    except CannotMerge as error:
        raise Escalate(site, f"the two values {error} to merge") from None


def and_(value, rest_fn, site):
    cx = _cx()
    t = test(value, site) if cx is not None else value
    if type(t) is not V.SymBool:
        return rest_fn() if t else value
    return _merged(cx, t, _guarded(cx, t, rest_fn, site), value, site)


def or_(value, rest_fn, site):
    cx = _cx()
    t = test(value, site) if cx is not None else value
    if type(t) is not V.SymBool:
        return value if t else rest_fn()
    return _merged(cx, t, value, _guarded(cx, _negate(t), rest_fn, site), site)


def all_of(value, rest_fn, site):
    """The truth of `value and rest` where only its truth is used (rewrite.py: `condition`):
    a Python bool, or while proving a SymBool; each operand's truth asked once, as Python does."""
    cx = _cx()
    t = test(value, site) if cx is not None else bool(value)
    if type(t) is not V.SymBool:
        return _truth(cx, rest_fn(), site) if t else False
    rest = _guarded(cx, t, lambda: _truth(cx, rest_fn(), site), site)
    return t if rest is ABANDONED else V.bool_and(t, rest)


def any_of(value, rest_fn, site):
    """The truth of `value or rest` where only its truth is used (all_of's twin)."""
    cx = _cx()
    t = test(value, site) if cx is not None else bool(value)
    if type(t) is not V.SymBool:
        return True if t else _truth(cx, rest_fn(), site)
    rest = _guarded(cx, _negate(t), lambda: _truth(cx, rest_fn(), site), site)
    return t if rest is ABANDONED else V.bool_or(t, rest)


def _truth(cx, value, site):
    return test(value, site) if cx is not None else bool(value)


def not_(value):
    if type(value) is Filtered:  # `if not values:` of a filtered list: none kept
        t = value.truth()
        return _negate(t) if type(t) is V.SymBool else not t
    if _symbolic(value):
        t = V.truth(value)
        return _negate(t) if type(t) is V.SymBool else not t
    return not value


_COMPARE = {
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Is": lambda a, b: _identity(a, b),
    "IsNot": lambda a, b: not _identity(a, b),
    "In": lambda a, b: call(operator.contains, b, a),
    "NotIn": lambda a, b: not_(call(operator.contains, b, a)),
}


def _identity(a, b) -> bool:
    """`a is b`; refused for an object chosen by a symbolic index (symbytes.Choice) and another
    bytes object: which object it is depends on the inputs."""
    chosen = [x for x in (a, b) if type(x) is SymBytes and x.choice is not None]
    if chosen and all(type(x) is SymBytes or isinstance(x, (bytes, bytearray)) for x in (a, b)):
        _cx().refuse(
            "`is` of a bytearray chosen by a symbolic index (which object it is depends on the inputs)",
            "compare the bytes with ==",
        )
    return a is b


def chain(left, pairs, site):
    """`a < b < c ...`: each operand once, left to right, stopping at the first false."""
    op, right_fn = pairs[0]
    right = right_fn()
    r = _COMPARE[op](left, right)
    if len(pairs) == 1:
        return r
    return and_(r, lambda: chain(right, pairs[1:], site), site)


def assert_(value, message_fn):
    cx = _cx()
    t = test(value, None) if cx is not None else value
    if type(t) is V.SymBool:
        t = cx.decide(t, "an assert")
    if not t:
        message = message_fn()
        raise AssertionError(message) if message is not None else AssertionError()


# Subscripts and attributes ----------------------------------------------------------------------


def getitem(container, index):
    if type(index) is int or not _symbolic(index) or _cx() is None:
        return container[index]
    if type(container) in (list, tuple):
        return _merged_read(container, index)
    if _keyed_by_ints(container):
        return _merged_lookup(container, index)
    return container[index]


def _keyed_by_ints(container) -> bool:
    """A dict whose keys are all ints (a register file by number): read and written at a
    symbolic key as a list is at a symbolic index."""
    return type(container) is dict and bool(container) and all(type(k) is int for k in container)


def _keys_it_may_be(cx, table, key) -> list:
    """The keys of `table` a symbolic key may equal (KeyError on the path where it is none)."""
    every = sorted(table)
    keys = [k for k in every if key.lo <= k <= key.hi]
    if every == list(range(every[0], every[-1] + 1)):  # keys a..b (registers 0..31): a range test
        first, last = every[0], every[-1]
        present = True if first <= key.lo and key.hi <= last else (key >= first) & (key <= last)
    else:
        present = False
        for k in keys:
            present = V.bool_or(present, key == k)
    if type(present) is V.SymBool:
        present = cx.decide(present, "a key that may be missing from the dict")
    if not present:
        raise KeyError("a key missing from the dict")
    return keys


def _merged_lookup(table, key):
    cx = _cx()
    keys = _keys_it_may_be(cx, table, key)
    if len(table) == NUM_VREGS and all(k in table for k in range(NUM_VREGS)):
        # {n: pre.regs[n]} read at a register number (on this path one of its keys, whatever
        # the key's bounds: vs2 + k may be 1..38): the array read, as a list's (_merged_read)
        whole = _whole_register_file([table[k] for k in range(NUM_VREGS)])
        if whole is not None:
            return whole[key]
    return chosen(cx, key, [(k, table[k]) for k in keys], "dict")


def chosen(cx, index, pairs, container: str):
    """The value of the (key, value) pair whose key the index equals (it equals one of them),
    merged from the last pair back."""
    value = pairs[-1][1]
    for key, item in reversed(pairs[:-1]):
        try:
            value = merge_values(cx, index == key, item, value)
        except CannotMerge:
            found = Choice.of([(index == k, x) for k, x in pairs])
            if found is not None:  # bytearrays: the object chosen (symbytes.Choice)
                return found
            cx.refuse(
                f"a symbolic index into a {container} of {type(item).__name__} values",
                f"index it with a concrete int, or keep ints in the {container}",
            )
    return value


def in_range(cx, index, n, error: str = "list index out of range"):
    """index as 0..n-1 (Python's negative indexes counted from the end); IndexError(error)
    where it is out of range."""
    inside = (index >= -n) & (index < n) if index.lo < 0 or index.hi >= n else True
    if type(inside) is V.SymBool and not cx.decide(inside, "an index that may be out of range"):
        raise IndexError(error)
    if index.lo < 0:
        return V.merge_ints(cx, index < 0, index + n, index)
    return index


def _merged_read(items, index):
    cx = _cx()
    n = len(items)
    index = in_range(cx, index, n)
    if type(index) is int:
        return items[index]
    whole = _whole_register_file(items)
    if whole is not None:  # list(pre.regs) read at a register number: the array read
        return whole[index]
    whole = symbytes_register_file(items)
    if whole is not None:  # [r.to_bytes(...) for r in pre.regs]: the array read, as bytes
        return whole(index)
    return chosen(
        cx, index, [(j, items[j]) for j in range(max(index.lo, 0), min(index.hi, n - 1) + 1)], "list"
    )


def _whole_register_file(items):
    """The SymRegs a list was made from (each item still its register k), else None."""
    from vredmax.proofs.python.facade import SymRegs, selected

    if len(items) != NUM_VREGS or not all(type(x) is V.SymInt and x.bk.name == "z3" for x in items):
        return None
    # asked at every read of the list: the answer kept for these very items (z3's API is slow)
    cx = items[0].cx
    cache = cx.__dict__.setdefault("_whole_register_files", {})
    key = tuple(id(x) for x in items)
    if key in cache:
        return cache[key][1]
    found = _register_file_of(items, selected, SymRegs)
    cache[key] = (list(items), found)  # the items kept alive: their ids stay theirs
    return found


def _register_file_of(items, selected, SymRegs):
    first = selected(items[0].t)
    if first is None:
        return None
    for k, x in enumerate(items):
        found = selected(x.t)
        if found is None or found[1] != k or not found[0].eq(first[0]):
            return None
    return SymRegs(items[0].cx, items[0].w, first[0])


def setitem(container, index, value):
    cx = _cx()
    if cx is None:
        container[index] = value
        return
    if _symbolic(index) and type(container) is list:
        index = in_range(cx, index, len(container))
        if type(index) is not int:
            for j in range(max(index.lo, 0), min(index.hi, len(container) - 1) + 1):
                setitem(container, j, _stored_at(cx, index == j, value, container[j]))
            return
    if _symbolic(index) and _keyed_by_ints(container):
        try:
            keys = _keys_it_may_be(cx, container, index)
        except KeyError:  # a new entry at a symbolic key: which one is not known
            cx.refuse(
                "a store at a symbolic key that may not be in the dict yet",
                "make the dict with every key first ({n: 0 for n in range(32)})",
            )
        for k in keys:
            setitem(container, k, _guarded_value(cx, index == k, value, container[k]))
        return
    if cx.guards:
        try:
            old = container[index]
        except (KeyError, IndexError, TypeError):
            raise Escalate(cx.guard_site(), "a store that creates an entry inside a branch") from None
        value = _guarded_value(cx, cx.guard(), value, old)
    container[index] = value


def _stored_at(cx, cond, new, old):
    """What a list slot holds after a store at a symbolic index: `new` where the index is
    this slot's; for bytearrays, the object chosen (symbytes.Choice)."""
    try:
        return merge_values(cx, cond, new, old)
    except CannotMerge:
        found = Choice.of([(cond, new), (V.bool_not(cond), old)])
        if found is None:
            raise Escalate(cx.guard_site(), "a store of a value that cannot be merged") from None
        return found


def _guarded_value(cx, cond, new, old):
    try:
        return merge_values(cx, cond, new, old)
    except CannotMerge:
        raise Escalate(cx.guard_site(), "a store of a value that cannot be merged") from None


def setitem_op(container, index, op, value):
    old = getitem(container, index)
    setitem(container, index, inplace(old, op, value))


def setattr(obj, name, value):
    cx = _cx()
    if cx is not None and cx.guards:
        old = getattr(obj, name, UNBOUND)
        if old is UNBOUND:
            raise Escalate(cx.guard_site(), "an attribute created inside a branch")
        value = _guarded_value(cx, cx.guard(), value, old)
    builtins.setattr(obj, name, value)


def setattr_op(obj, name, op, value):
    setattr(obj, name, inplace(getattr(obj, name), op, value))


_INPLACE = {
    "Add": operator.iadd,
    "Sub": operator.isub,
    "Mult": operator.imul,
    "FloorDiv": operator.ifloordiv,
    "Mod": operator.imod,
    "Pow": operator.ipow,
    "LShift": operator.ilshift,
    "RShift": operator.irshift,
    "BitOr": operator.ior,
    "BitXor": operator.ixor,
    "BitAnd": operator.iand,
    "Div": operator.itruediv,
    "MatMult": operator.imatmul,
}
_MUTABLE = (list, dict, set, bytearray, collections.deque)


def _mutable(value) -> bool:
    return isinstance(value, _MUTABLE) or type(value) is Filtered


def inplace(old, op, value):
    """`old op= value` (an in-place update of a list inside a merged branch escalates)."""
    cx = _cx()
    if cx is not None and cx.guards and (_mutable(old) or type(old).__module__ == "numpy"):
        raise Escalate(cx.guard_site(), f"an in-place {op} of a {type(old).__name__} inside a branch")
    return _INPLACE[op](old, value)


# Calls and loops ------------------------------------------------------------------------------------

MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "update",
    "setdefault",
    "popitem",
    "add",
    "discard",
    "difference_update",
    "intersection_update",
    "symmetric_difference_update",
    "appendleft",
    "extendleft",
    "popleft",
    "rotate",
    "fill",
    "put",
    "itemset",
    "resize",
    "__setitem__",
    "__delitem__",
    "__iadd__",
}
# The project's own code: the vredmax package's folders (two when run from the repository's
# root with the strict editable install: its vredmax/ and the link tree; vredmax/__init__.py)
_PROJECT = tuple(os.path.join(os.path.abspath(folder), "") for folder in vredmax.__path__)


def truth_call(function, truth_fn, value_fn):
    """`bool(x)` (rewrite.py): with the builtin bool, x computed as a test computes it (its
    truth is the same: `and`/`or` give a condition, which merges with an int where a value
    would not); any other `bool` gets x itself."""
    if function is builtins.bool:
        return call(function, truth_fn())
    return call(function, value_fn())


def call(function, *args, **kwargs):
    cx = _cx()
    if cx is None:
        return function(*args, **kwargs)
    from vredmax.proofs.python import pybuiltins

    try:
        function = pybuiltins.SUBSTITUTES.get(function, function)
    except TypeError:  # an unhashable callable
        pass
    function = symbytes_method(function)  # b"".join, struct.Struct(...).pack of symbolic bytes
    if _from_numpy(function) and (any(_held(a) for a in args) or any(_held(v) for v in kwargs.values())):
        name = getattr(function, "__name__", None) or type(function).__name__
        cx.refuse(
            f"numpy ({name}) of symbolic values: a numpy array cannot hold them",
            "keep the elements in a Python list of ints (max(), min(), sorted(), the operators and "
            "if on them are proved), or write the reduction with ops",
        )
    if cx.guards and _mutates(cx, function):
        raise Escalate(
            cx.guard_site(),
            f"a call of {getattr(function, '__qualname__', function)} that may "
            "change its arguments inside a branch",
        )
    return function(*args, **kwargs)


def _from_numpy(function) -> bool:
    module = getattr(function, "__module__", None) or type(function).__module__ or ""
    owner = getattr(function, "__self__", None)
    return module.split(".")[0] == "numpy" or (
        owner is not None and type(owner).__module__.split(".")[0] == "numpy"
    )


def _held(value, depth=3) -> bool:
    """Does a value hold a symbolic one (in a list, tuple, dict or filtered list)?"""
    from vredmax.proofs.python.pybuiltins import SortedFiltered, SymRange
    from vredmax.proofs.python.facade import SymRegs

    if type(value) in (V.SymInt, V.SymBool, SymRegs, Filtered, SymRange, SortedFiltered, MaybeUnbound):
        return True
    if depth and type(value) in (list, tuple, set, frozenset):
        return any(_held(v, depth - 1) for v in value)
    if depth and type(value) is dict:
        return any(_held(v, depth - 1) for v in value.values())
    return False


def call_star(function, tagged, **kwargs):
    args = []
    for tag, value in tagged:
        if tag == "*":
            args.extend(value)
        else:
            args.append(value)
    return call(function, *args, **kwargs)


def _mutates(cx, function) -> bool:
    """May the call change an object that exists outside the branch? (Rewritten user code
    and the project's own functions guard their stores or have none.)"""
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "")
    if (
        owner is not None
        and not isinstance(owner, type)
        and (_mutable(owner) or type(owner).__module__ == "numpy")
    ):
        return name in MUTATORS or type(owner).__module__ == "numpy"
    module = getattr(function, "__module__", None) or ""
    if module in (
        "heapq",
        "_heapq",
        "random",
        "bisect",
        "_bisect",
        "struct",
        "_struct",
        "array",
    ) or module.startswith("numpy"):
        return True
    if function in (builtins.setattr, builtins.delattr, builtins.exec, builtins.eval):
        return True
    code = getattr(function, "__code__", None) or getattr(
        getattr(function, "__func__", None), "__code__", None
    )
    if code is not None:
        path = os.path.abspath(code.co_filename)
        return not (path in cx.user_files or path.startswith(_PROJECT) or path in runcontext.INTERNAL_FILES)
    return False


def iterate(iterable):
    """The items of a for loop, each with its `stop` condition: False, or for a symbolic
    range(n) `i >= n` (the loop runs to n's bound, the rounds past n stopped), or for a
    filtered list the negation of the item's condition."""
    from vredmax.proofs.python.pybuiltins import SymRange

    if type(iterable) is SymRange:
        return iterable.guarded()
    if type(iterable) is Filtered:
        return ((value, not_(cond)) for cond, value in iterable.items)
    return ((item, False) for item in iterable)


# Comprehensions with a filter ---------------------------------------------------------------------

SKIP = _Sentinel("<filtered out>")


def maybe(cond, element_fn):
    """An element of a filtered comprehension: itself, SKIP, or (while proving, under a
    symbolic condition) Guarded."""
    cx = _cx()
    if cx is None:
        return element_fn() if cond else SKIP
    t = test(cond, None)
    if type(t) is not V.SymBool:
        return element_fn() if t else SKIP
    value = _guarded(cx, t, element_fn, None)
    return SKIP if value is ABANDONED else Guarded(t, value)


class Guarded:
    __slots__ = ("cond", "value")

    def __init__(self, cond, value):
        self.cond, self.value = cond, value


def filtered(elements, as_list):
    """A filtered comprehension's value: a list (or iterator) when every condition is
    concrete; else a Filtered."""
    if not any(type(e) is Guarded for e in elements):
        kept = [e for e in elements if e is not SKIP]
        return kept if as_list else iter(kept)
    return Filtered(
        [(e.cond, e.value) if type(e) is Guarded else (True, e) for e in elements if e is not SKIP]
    )


class Filtered:
    """The elements of a comprehension whose filter is symbolic, each with its condition:
    taken by max, min, sum, any, all, len, functools.reduce and for loops (proofs/python/
    pybuiltins.py); anything that needs them as a list of known length is refused."""

    def __init__(self, items):
        self.items = items

    def truth(self):
        from vredmax.proofs.python.pybuiltins import symbolic_any

        return symbolic_any(cond for cond, _ in self.items)

    def _refuse(self, *args):
        _cx().refuse(
            "a list filtered by a symbolic condition used as a list (its length depends on the inputs)",
            "take max/min/sum/any/all/len of it or loop over it; or keep every element and choose "
            "with a condition (x if a else smallest)",
        )

    __iter__ = __getitem__ = __len__ = __contains__ = __reversed__ = __bool__ = _refuse

    # Added items are there whatever the filter said: exactly a list's append and extend
    # (inside a merged branch they escalate, as a list's: `_mutable`).
    def append(self, item):
        self.items.append((True, item))

    def extend(self, other):
        items = self._items(other)
        self.items.extend(items if items is not None else [(True, x) for x in other])

    def __iadd__(self, other):
        self.extend(other)
        return self

    def copy(self):
        return Filtered(list(self.items))

    def clear(self):
        self.items.clear()

    def __getattr__(self, name):
        if name in MUTATORS or name in ("index", "count"):  # a list's other methods need its positions
            _cx().refuse(
                f"list.{name} on a list filtered by a symbolic condition (its length depends on the inputs)",
                "append to it, extend it, or take max/min/sum/any/all/len of it or loop over "
                "it; or keep every element and choose with a condition (x if a else smallest)",
            )
        raise AttributeError(f"'list' object has no attribute {name!r}")

    @staticmethod
    def _items(other):
        if type(other) is Filtered:
            return other.items
        if type(other) in (list, tuple):
            return [(True, x) for x in other]
        return None

    def __add__(self, other):
        items = self._items(other)
        return NotImplemented if items is None else Filtered(self.items + items)

    def __radd__(self, other):
        items = self._items(other)
        return NotImplemented if items is None else Filtered(items + self.items)

    def __repr__(self):
        return f"<{len(self.items)} elements, each under a condition>"


class MaybeUnbound:
    """A name bound on some paths only: any use asks whether it is bound here (and raises
    UnboundLocalError, as Python does, where it is not)."""

    __slots__ = ("_name", "_bound", "_value")
    __class__ = property(lambda self: type(self._get()))

    def __init__(self, name, bound, value):
        self._name, self._bound, self._value = name, bound, value

    def _get(self):
        cx = _cx()
        if cx is None or not cx.decide(self._bound, f"the use of {self._name}, bound on some paths only"):
            raise UnboundLocalError(f"local variable '{self._name}' referenced before assignment")
        return self._value

    def __getattr__(self, attr):
        return getattr(self._get(), attr)


def _forward(name):
    def method(self, *args):
        return getattr(self._get(), name)(*args)

    method.__name__ = name
    return method


for _name in (
    "__bool__",
    "__int__",
    "__index__",
    "__hash__",
    "__str__",
    "__format__",
    "__len__",
    "__iter__",
    "__getitem__",
    "__setitem__",
    "__contains__",
    "__call__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__and__",
    "__rand__",
    "__or__",
    "__ror__",
    "__xor__",
    "__rxor__",
    "__lshift__",
    "__rlshift__",
    "__rshift__",
    "__rrshift__",
    "__floordiv__",
    "__rfloordiv__",
    "__mod__",
    "__rmod__",
    "__neg__",
    "__pos__",
    "__invert__",
    "__abs__",
    "__float__",
):
    builtins.setattr(MaybeUnbound, _name, _forward(_name))
