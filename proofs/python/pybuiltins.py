"""Symbolic versions of the builtins that decide by comparing: what `__vx__.call` substitutes.

Each gives the builtin's exact result on the values it gets (the same first maximum for ties,
the same stable order, the same exceptions), without a Python truth test of a symbolic
comparison: the choices are merged (`a if a > b else b` as an if-then-else). With no symbolic
value among the arguments the builtin itself runs. `int(x)` and `bool(x)` of a symbolic value
are that value (no Python int is needed), `type(x)` its concrete type, `range(n)` of a
symbolic n a `SymRange`. Negated values (`-x`, proofs/python/values.py records the x) are
compared by the values themselves and chosen between as the negated choice: min() of
negations is the negated max() (the same value, a term the cut-point method reads as a
maximum). Refused, with what to write instead: heapq's functions that move items by
comparisons (heappop, heapify, ...: the heap's layout would depend on the values), `sorted`
of more than SORT_LIMIT symbolic values read other than at its ends.
"""

from __future__ import annotations

import builtins
import functools
import heapq

from vredmax.proofs.python import symbytes
from vredmax.proofs.python import values as V
from vredmax.proofs.python.facade import CannotMerge, SymRegs, merge

V.internal(__file__)

SORT_LIMIT = 256
_NOTHING = object()


def _cx():
    return V.active()


def _symbolic(x) -> bool:
    if type(x) in (V.SymInt, V.SymBool, SymRegs):
        return True
    if type(x) in (tuple, list):
        return any(_symbolic(y) for y in x)
    return False


def _call(function, *args):
    from vredmax.proofs.python.branches import call

    return call(function, *args)


def less(a, b):
    """a < b as Python compares (tuples and lists lexicographically), a bool or a SymBool."""
    if type(a) in (tuple, list) and type(b) in (tuple, list) and type(a) is type(b):
        result = len(a) < len(b)
        for x, y in reversed(list(zip(a, b))):
            equal, smaller = x == y, less(x, y)
            result = _choose(equal, result, smaller)
        return result
    negated = V.negations(a, b)
    if negated is not None:  # -x < -y is y < x: a compare of the values themselves
        return negated[1] < negated[0]
    return a < b


def _choose(cond, a, b):
    if type(cond) is not V.SymBool:
        return a if cond else b
    return merge(_cx(), cond, a, b)


def _pick(cond, a, b):
    try:
        return _choose(cond, a, b)
    except CannotMerge:
        _cx().refuse(
            "max()/min()/sorted() of values that cannot be chosen between symbolically (lists, objects)",
            "compare ints (or tuples of ints)",
        )


def _extreme(name, replace, args, key, default):
    from vredmax.proofs.python.branches import Filtered

    if len(args) == 1 and type(args[0]) is Filtered:
        return _filtered_extreme(name, replace, args[0], key, default)
    items = list(args[0]) if len(args) == 1 else list(args)
    keys = [_call(key, item) for item in items] if key is not None else items
    if not any(_symbolic(k) or _symbolic(i) for k, i in zip(keys, items)):
        original = getattr(builtins, name)
        kwargs = {} if key is None else {"key": lambda item, _k=iter(keys): next(_k)}
        if default is not _NOTHING:
            kwargs["default"] = default
        return original(items, **kwargs)
    if not items:
        if default is _NOTHING:
            raise ValueError(f"{name}() arg is an empty sequence")
        return default
    best, best_key = items[0], keys[0]
    for item, k in zip(items[1:], keys[1:]):
        better = replace(k, best_key)
        best = _pick(better, item, best)
        best_key = best if key is None else _pick(better, k, best_key)  # without a key: one choice
    return best


def _filtered_extreme(name, replace, items, key, default):
    """max/min of a Filtered: the first item whose condition holds and that is better than
    every earlier one whose condition holds; the default (or ValueError) where none holds."""
    have, best, best_key = False, None, None
    for cond, item in items.items:
        k = _call(key, item) if key is not None else item
        if have is False:
            take = cond
        else:
            better = replace(k, best_key)
            take = V.bool_and(cond, V.bool_or(V.bool_not(have), better))
        best = item if best is None else _pick(take, item, best)
        best_key = best if key is None else k if best_key is None else _pick(take, k, best_key)
        have = V.bool_or(have, cond)
    if have is True:
        return best
    if default is _NOTHING:
        if have is False or not _cx().decide(have, f"{name}() of a filtered list that may be empty"):
            raise ValueError(f"{name}() arg is an empty sequence")
        return best
    return default if have is False else _pick(have, best, default)


def symbolic_sum(iterable, start=0):
    from vredmax.proofs.python.branches import Filtered

    if type(iterable) is not Filtered:
        return sum(iterable, start)
    total = start
    for cond, item in iterable.items:
        total = total + (item if cond is True else _pick(cond, item, 0))
    return total


def symbolic_len(obj):
    from vredmax.proofs.python.branches import Filtered

    if type(obj) is not Filtered:
        return len(obj)
    return symbolic_sum(Filtered([(c, 1) for c, _ in obj.items]))


def symbolic_max(*args, key=None, default=_NOTHING):
    """max(): the first maximal item (an item replaces the best one when it is greater)."""
    return _extreme("max", lambda k, best: less(best, k), args, key, default)


def symbolic_min(*args, key=None, default=_NOTHING):
    return _extreme("min", lambda k, best: less(k, best), args, key, default)


def symbolic_sorted(iterable, key=None, reverse=False):
    """sorted(): stable, as if each comparison were reversed for reverse=True (a bubble sort
    of merged compare-and-swap steps: the same order as the builtin's)."""
    from vredmax.proofs.python.branches import Filtered

    if type(iterable) is Filtered:
        return SortedFiltered(iterable, key, reverse)
    items = list(iterable)
    keys = [_call(key, item) for item in items] if key is not None else list(items)
    if not any(_symbolic(k) or _symbolic(i) for k, i in zip(keys, items)):
        order = sorted(range(len(items)), key=lambda i: keys[i], reverse=reverse)
        return [items[i] for i in order]
    if len(items) > SORT_LIMIT:
        return SortedEnds(items, keys if key is not None else items, reverse)
    for end in range(len(items) - 1, 0, -1):
        for j in range(end):
            swap = less(keys[j], keys[j + 1]) if reverse else less(keys[j + 1], keys[j])
            items[j], items[j + 1] = _pick(swap, items[j + 1], items[j]), _pick(swap, items[j], items[j + 1])
            keys[j], keys[j + 1] = _pick(swap, keys[j + 1], keys[j]), _pick(swap, keys[j], keys[j + 1])
    return items


class SortedEnds:
    """sorted() of more than SORT_LIMIT symbolic values: a whole sort's terms grow with the
    square of the length, so only its ends are built, when read: the first and the last ENDS
    items (`[0]`, `[-1]`, `[n - 1]`, `[:k]`, `[-k:]`). The first (last) item is the fold
    max()/min() make; the first (last) k are k passes of merged compare-and-swap steps, each
    carrying the next item of the stable order to its end (as heapq.nlargest). Its length is
    known; anything that needs a middle item is refused."""

    ENDS = 8

    def __init__(self, items, keys, reverse):
        self.items, self.keys, self.reverse = items, keys, reverse
        self.ends: dict = {}  # (at_front, count) -> the items, the outermost first

    def _before(self, a, b):
        """Whether key a sorts strictly before key b (ties keep their order: the sort is stable)."""
        return less(b, a) if self.reverse else less(a, b)

    def _end(self, count, at_front):
        """The first (at_front) or last `count` items of the stable order, the outermost first."""
        if (at_front, count) in self.ends:
            return self.ends[at_front, count]
        if count == 1:  # the first: an item replaces the best when strictly before it; the
            # last: when the best is not strictly before it (a later tie comes later)
            best, best_key = self.items[0], self.keys[0]
            for item, k in zip(self.items[1:], self.keys[1:]):
                take = self._before(k, best_key) if at_front else V.bool_not(self._before(k, best_key))
                best = _pick(take, item, best)
                best_key = best if self.keys is self.items else _pick(take, k, best_key)
            found = [best]
        else:
            items = list(self.items)
            keys = list(self.keys) if self.keys is not self.items else items
            found = []
            for p in range(count):
                if at_front:  # from the back, carrying the first in order to position p
                    for j in range(len(items) - 2, p - 1, -1):
                        self._exchange(items, keys, j, self._before(keys[j + 1], keys[j]))
                    found.append(items[p])
                else:  # from the front, carrying the last in order to position n - 1 - p
                    for j in range(len(items) - 2 - p + 1):
                        self._exchange(items, keys, j, self._before(keys[j + 1], keys[j]))
                    found.append(items[len(items) - 1 - p])
        self.ends[at_front, count] = found
        return found

    @staticmethod
    def _exchange(items, keys, j, swap):
        items[j], items[j + 1] = _pick(swap, items[j + 1], items[j]), _pick(swap, items[j], items[j + 1])
        if keys is not items:
            keys[j], keys[j + 1] = _pick(swap, keys[j + 1], keys[j]), _pick(swap, keys[j], keys[j + 1])

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        n = len(self.items)
        if type(index) is builtins.slice:
            if any(_symbolic(p) for p in (index.start, index.stop, index.step)):
                return self._refuse()
            return [self._at(i) for i in range(n)[index]]
        if type(index) is not int:
            return self._refuse()
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("list index out of range")
        return self._at(index)

    def _at(self, index):
        n = len(self.items)
        if index < self.ENDS:
            return self._end(index + 1, True)[index]
        if n - 1 - index < self.ENDS:
            return self._end(n - index, False)[n - 1 - index]
        return self._refuse()

    def _refuse(self, *args):
        _cx().refuse(
            f"sorted() of {len(self.items)} symbolic values read other than at its first or last "
            f"{self.ENDS} items (a whole sort's terms grow with the square of the length)",
            f"sort at most {SORT_LIMIT}, or take sorted(...)[0], sorted(...)[-1], max() or min()",
        )

    def __bool__(self):
        return True  # more than SORT_LIMIT items

    __iter__ = __contains__ = __reversed__ = _refuse


class SortedFiltered:
    """sorted() of a list filtered by symbolic conditions (its length depends on the inputs):
    only its ends can be read. The sort is stable, so [0] is the first item of least key
    (reverse: of greatest key) and [-1] the last item of greatest key (reverse: of least);
    [:n] keeps [0] readable (heapq.nlargest(1, ...)[0])."""

    def __init__(self, filtered, key, reverse, head_only=False):
        self.filtered, self.key, self.reverse, self.head_only = filtered, key, reverse, head_only

    def __getitem__(self, index):
        if (
            type(index) is builtins.slice
            and index.start in (None, 0)
            and index.step in (None, 1)
            and type(index.stop) is int
            and index.stop >= 1
        ):
            return SortedFiltered(self.filtered, self.key, self.reverse, head_only=True)
        if index == 0:  # first of least key; reverse: first of greatest
            replace = (lambda k, best: less(best, k)) if self.reverse else (lambda k, best: less(k, best))
        elif index == -1 and not self.head_only:  # last of greatest key; reverse: last of least
            replace = (
                (lambda k, best: V.bool_not(less(best, k)))
                if self.reverse
                else (lambda k, best: V.bool_not(less(k, best)))
            )
        else:
            return self._refuse()
        try:
            return _filtered_extreme("sorted", replace, self.filtered, self.key, _NOTHING)
        except ValueError:
            raise IndexError("list index out of range") from None

    def _refuse(self, *args):
        _cx().refuse(
            "a sorted list of items filtered by a symbolic condition read other than at [0] or [-1] "
            "(its length depends on the inputs)",
            "take sorted(...)[0], sorted(...)[-1], max() or min(), or keep every element and choose "
            "with a condition (x if a else smallest)",
        )

    __iter__ = __len__ = __contains__ = __reversed__ = __bool__ = _refuse


def _conditions(iterable, combine):
    from vredmax.proofs.python.branches import Filtered

    if type(iterable) is Filtered:  # an item counts where its condition holds
        return [combine(c, V.truth(v)) for c, v in iterable.items]
    return iterable


def symbolic_any(iterable):
    result = False
    for item in _conditions(iterable, V.bool_and):
        t = V.truth(item)
        if t is True:
            return True
        if type(t) is V.SymBool:
            result = V.bool_or(result, t)
    return result


def symbolic_all(iterable):
    result = True
    for item in _conditions(iterable, lambda c, t: V.bool_or(V.bool_not(c), t)):
        t = V.truth(item)
        if t is False:
            return False
        if type(t) is V.SymBool:
            result = V.bool_and(result, t)
    return result


def symbolic_int(x=_NOTHING, *args, **kwargs):
    """int(x) of a symbolic int is x (of a symbolic bool, 0 or 1): no Python int is needed."""
    if not args and not kwargs and type(x) is V.SymInt:
        return x
    if not args and not kwargs and type(x) is V.SymBool:
        return x.as_int()
    return int(*([] if x is _NOTHING else [x]), *args, **kwargs)


def symbolic_bool(x=False):
    if type(x) in (V.SymInt, V.SymBool):
        return V.truth(x)
    return bool(x)


def symbolic_type(*args):
    if len(args) == 1 and type(args[0]) is symbytes.SymBytes:
        return args[0]._class()
    if len(args) == 1 and type(args[0]) in (V.SymInt, V.SymBool, SymRegs):
        return args[0].__class__
    return type(*args)


def symbolic_id(obj):
    if type(obj) is symbytes.SymBytes and obj.choice is not None:
        _cx().refuse(
            "id() of a bytearray chosen by a symbolic index (which object it is depends on the inputs)",
            "compare the bytes with ==",
        )
    return id(obj)


def symbolic_isinstance(obj, classes):
    if type(obj) is symbytes.SymBytes:
        obj._class()  # refused where bytes and bytearrays are chosen between
    return isinstance(obj, classes)


def symbolic_index(x):
    return (
        x if type(x) is V.SymInt else x.as_int() if type(x) is V.SymBool else __import__("operator").index(x)
    )


def symbolic_reduce(function, iterable, *initial):
    """functools.reduce, calling `function` through the runtime (a builtin max passed to it
    gets its symbolic version too)."""
    from vredmax.proofs.python.branches import Filtered

    if type(iterable) is Filtered:
        pairs = iterable.items
        if not initial and pairs and pairs[0][0] is True:
            # an item there whatever the filter (`[seed] + [x for x ... if active]`) comes first:
            # reduce starts from it, exactly as reduce(f, rest, first)
            initial, pairs = (pairs[0][1],), pairs[1:]
        if not initial:
            _cx().refuse(
                "functools.reduce of a filtered list without an initial value", "give reduce an initial value"
            )
        acc = initial[0]
        for cond, item in pairs:
            acc = (
                _pick(cond, _call(function, acc, item), acc)
                if cond is not True
                else _call(function, acc, item)
            )
        return acc
    items = iter(iterable)
    if initial:
        acc = initial[0]
    else:
        try:
            acc = next(items)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    for item in items:
        acc = _call(function, acc, item)
    return acc


class SymRange:
    """range(start, stop, step) with a symbolic bound: iterated by a for loop up to its bound,
    each round past the real end stopped (branches.iterate); anything else that needs its
    length is refused."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def guarded(self):
        start, stop, step = self.start, self.stop, self.step
        lo = start.lo if type(start) is V.SymInt else start
        hi = stop.hi if type(stop) is V.SymInt else stop
        k = 0
        while True:
            item = start + k * step
            if lo + k * step >= hi:
                return
            done = item >= stop
            if done is True:
                return
            yield item, done
            k += 1

    def _refuse(self, *args):
        _cx().refuse(
            "a range with a symbolic bound used other than by a for loop",
            "loop over it with `for i in range(...)`, or over range(VLMAX) testing `i < vl`",
        )

    __len__ = __iter__ = __getitem__ = __reversed__ = __contains__ = _refuse


def symbolic_range(*args):
    if not any(type(a) in (V.SymInt, V.SymBool) for a in args):
        return range(*args)
    start, stop, step = (
        (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) > 2 else 1)
    )
    start, stop = symbolic_int(start), symbolic_int(stop)
    if type(step) is not int or step <= 0:
        _cx().refuse(
            "a range with a symbolic bound and a step other than a positive constant",
            "loop with a positive constant step",
        )
    return SymRange(start, stop, step)


def symbolic_heappush(heap, item):
    """heapq.heappush: the item appended and moved up by merged compare-and-swap steps (the
    layout heapq makes, the heap being a heap)."""
    if not _symbolic(item) and not any(_symbolic(x) for x in heap):
        return heapq.heappush(heap, item)
    heap.append(item)
    pos = len(heap) - 1
    while pos > 0:
        parent = (pos - 1) >> 1
        swap = less(heap[pos], heap[parent])
        heap[pos], heap[parent] = _pick(swap, heap[parent], heap[pos]), _pick(swap, heap[pos], heap[parent])
        pos = parent


def symbolic_nlargest(n, iterable, key=None):
    """heapq.nlargest: its first n items of greatest key, ties in their order (for n == 1 the
    max(), as heapq itself does)."""
    return _heap_select("nlargest", n, iterable, key, True)


def symbolic_nsmallest(n, iterable, key=None):
    return _heap_select("nsmallest", n, iterable, key, False)


def _heap_select(name, n, iterable, key, reverse):
    """sorted(iterable, key=key, reverse=reverse)[:n] (heapq's documented equivalent), built
    with n passes of merged compare-and-swap steps, each carrying the first best item left to
    the front, not with a whole sort: a sort's result term grows with the square of the length."""
    from vredmax.proofs.python.branches import Filtered

    if type(iterable) is Filtered and type(n) is int and n >= 1:
        return SortedFiltered(iterable, key, reverse)[:n]
    if type(n) is not int:
        return symbolic_sorted(iterable, key=key, reverse=reverse)[:n]
    items = list(iterable)
    if n == 1:  # max()/min() decide themselves whether anything is symbolic
        return [(symbolic_max if reverse else symbolic_min)(items, key=key)] if items else []
    keys = [_call(key, item) for item in items] if key is not None else items  # no key: one list, one swap
    if not any(_symbolic(k) or _symbolic(i) for k, i in zip(keys, items)):
        return getattr(heapq, name)(
            n, items, key=None if key is None else lambda item, _k=iter(keys): next(_k)
        )
    if n <= 0:
        return []
    for i in range(min(n, len(items) - 1)):
        for j in range(len(items) - 2, i - 1, -1):
            swap = less(keys[j], keys[j + 1]) if reverse else less(keys[j + 1], keys[j])
            items[j], items[j + 1] = _pick(swap, items[j + 1], items[j]), _pick(swap, items[j], items[j + 1])
            if keys is not items:
                keys[j], keys[j + 1] = _pick(swap, keys[j + 1], keys[j]), _pick(swap, keys[j], keys[j + 1])
    return items[:n]


def _refused_heap(name):
    original = getattr(heapq, name)

    def function(heap, *args):
        if _symbolic(heap) or any(_symbolic(a) for a in args):
            _cx().refuse(
                f"heapq.{name} of symbolic values (the heap's layout would depend on them)",
                "take max()/min() or heapq.nlargest/nsmallest, or sorted()",
            )
        return original(heap, *args)

    return function


SUBSTITUTES = {
    builtins.max: symbolic_max,
    builtins.min: symbolic_min,
    builtins.sorted: symbolic_sorted,
    builtins.any: symbolic_any,
    builtins.all: symbolic_all,
    builtins.int: symbolic_int,
    builtins.sum: symbolic_sum,
    builtins.len: symbolic_len,
    builtins.bool: symbolic_bool,
    builtins.type: symbolic_type,
    builtins.isinstance: symbolic_isinstance,
    builtins.id: symbolic_id,
    builtins.range: symbolic_range,
    functools.reduce: symbolic_reduce,
    heapq.heappush: symbolic_heappush,
    heapq.nlargest: symbolic_nlargest,
    heapq.nsmallest: symbolic_nsmallest,
    __import__("operator").index: symbolic_index,
}
for _name in ("heappop", "heapify", "heapreplace", "heappushpop", "merge"):
    SUBSTITUTES[getattr(heapq, _name)] = _refused_heap(_name)
SUBSTITUTES.update(symbytes.SUBSTITUTES)  # bytes, bytearray, int.to_bytes/from_bytes, struct
