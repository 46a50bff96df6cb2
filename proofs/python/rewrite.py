"""The user's Python, rewritten so that a branch on a symbolic value can take both ways.

check-impl loads the user's files through `compile_user` (same file names and line numbers).
In every function:

- `if test:` becomes: the test asked of the runtime (proofs/python/branches.py) `__vx__`;
  when it is a Python bool (every concrete run, and constants while proving) the original
  branch runs as written; when it is symbolic, each branch runs as a nested function over the
  names the branches assign (the condition guarding what they store), and the names are merged
  with if-then-else (`__vx__.branch`). Where merging is impossible, the runtime explores the
  branch both ways instead (proofs/python/paths.py);
- `continue`, `break` and `return` inside a branch become flags, the statements after them
  guarded by the flag (so a branch on a symbolic condition can skip the rest of a loop body,
  leave a loop or return early); `while` re-tests its condition each round;
- `a if c else b`, `and`, `or`, `not`, `assert` and comparison chains ask the runtime too;
- every call goes through `__vx__.call` (which gives builtins such as max, min, sorted, any,
  all, sum, range and heapq's functions their symbolic versions, and refuses a mutating call
  inside a merged branch); subscripts (`t[k]`, `t[k] = v`) through `__vx__.getitem` and
  `__vx__.setitem` (a symbolic index into a list is a merged read or write; a store inside a
  merged branch is guarded by its condition), attribute stores through `__vx__.setattr`.

On concrete values every rewritten construct does exactly what the original does (the tests of
tests/test_check_impl_rewrite.py run the same code both ways). Functions with `yield`,
`await`, class bodies and module-level code keep their original statements (their expressions
are still rewritten); a branch holding a `return`, `break` or `continue` that cannot become a
flag (inside `try`, `with`) keeps its original form, and the runtime explores it.
"""

from __future__ import annotations

import ast
import copy
import itertools

RUNTIME = "__vx__"
FLAG_PREFIX = "__vx_"


class _Sites:
    """Numbers for the rewritten constructs of one file (a site is (file, number))."""

    def __init__(self, filename):
        self.filename = filename
        self.counter = itertools.count()

    def new(self, node) -> ast.Constant:
        return ast.Constant((self.filename, next(self.counter), getattr(node, "lineno", 0)))


def _rt(attr: str) -> ast.Attribute:
    return ast.Attribute(ast.Name(RUNTIME, ast.Load()), attr, ast.Load())


def _call(attr: str, *args, keywords=()) -> ast.Call:
    return ast.Call(_rt(attr), list(args), list(keywords))


def _lambda(body: ast.expr) -> ast.Lambda:
    return ast.Lambda(ast.arguments([], [], None, [], [], None, []), body)


def _name(name: str, ctx=None) -> ast.Name:
    return ast.Name(name, ctx or ast.Load())


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([_name(name, ast.Store())], value)


def _is(name: str, value: bool) -> ast.Compare:
    return ast.Compare(_name(name), [ast.Is()], [ast.Constant(value)])


# Which names a block assigns --------------------------------------------------------------


class _Assigned(ast.NodeVisitor):
    """Names bound in a block (not inside nested functions, classes, comprehensions)."""

    def __init__(self):
        self.names: list = []

    def add(self, name):
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.add(node.id)

    def visit_FunctionDef(self, node):
        self.add(node.name)
        for d in node.decorator_list:
            self.visit(d)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_NamedExpr(self, node):
        self.add(node.target.id)
        self.visit(node.value)

    def visit_Import(self, node):
        for alias in node.names:
            self.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self.add(node.name)
        self.generic_visit(node)


def assigned(stmts) -> list:
    finder = _Assigned()
    for s in stmts:
        finder.visit(s)
    return finder.names


class _Escapes(ast.NodeVisitor):
    """Does a block hold a return/break/continue/yield that leaves it (not a nested loop's
    break or continue, not a nested function's return)?"""

    def __init__(self):
        self.found = False
        self.loop_depth = 0

    def visit_Return(self, node):
        self.found = True

    def visit_Break(self, node):
        if self.loop_depth == 0:
            self.found = True

    visit_Continue = visit_Break

    def visit_Yield(self, node):
        self.found = True

    visit_YieldFrom = visit_Await = visit_Yield

    def _loop(self, node):
        self.loop_depth += 1
        for s in node.body:
            self.visit(s)
        self.loop_depth -= 1
        for s in node.orelse:
            self.visit(s)

    visit_For = visit_While = visit_AsyncFor = _loop

    def visit_FunctionDef(self, node):
        pass

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def escapes(stmts) -> bool:
    finder = _Escapes()
    for s in stmts:
        finder.visit(s)
    return finder.found


def _has(node, kinds) -> bool:
    """node holds one of `kinds`, outside nested functions and classes."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                stack.append(child)
    return False


# Expressions ---------------------------------------------------------------------------------


class Expressions(ast.NodeTransformer):
    """The expression rewrites (module docstring); used inside every scope."""

    def __init__(self, sites: _Sites):
        self.sites = sites

    def condition(self, node):
        """An expression whose value is used only for its truth (the test of an if, while,
        conditional expression, filter or assert, the operand of not): `and`/`or` inside it
        become `__vx__.all_of`/`any_of`, which give the truth only, so a symbolic operand
        merges with a plain one (`if x >> 7 and tail == "ones":` would otherwise leave an int
        on one side, a bool on the other, to merge)."""
        if isinstance(node, ast.BoolOp):
            name = "all_of" if isinstance(node.op, ast.And) else "any_of"
            values = [self.condition(v) for v in node.values]
            result = values[-1]
            for value in reversed(values[:-1]):
                result = _call(name, value, _lambda(result), self.sites.new(node))
            return ast.copy_location(result, node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ast.copy_location(_call("not_", self.condition(node.operand)), node)
        return self.visit(node)

    def visit_IfExp(self, node):
        node.test = self.condition(node.test)
        node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
        return ast.copy_location(
            _call("ifexp", node.test, _lambda(node.body), _lambda(node.orelse), self.sites.new(node)), node
        )

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(name, value, _lambda(result), self.sites.new(node))
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return self.condition(node)
        self.generic_visit(node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and not isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return node
        # a < b < c: each operand evaluated once, left to right, stopping at the first false;
        # `a is b` too (an object chosen by a symbolic index is no one object: branches._identity)
        operands = [node.left] + list(node.comparators)
        pairs = [
            ast.Tuple([ast.Constant(type(op).__name__), _lambda(value)], ast.Load())
            for op, value in zip(node.ops, operands[1:])
        ]
        return ast.copy_location(
            _call("chain", operands[0], ast.List(pairs, ast.Load()), self.sites.new(node)), node
        )

    def visit_Call(self, node):
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "bool"
            and len(node.args) == 1
            and not node.keywords
            and not isinstance(node.args[0], ast.Starred)
        ):
            # bool(x) uses x's truth only: `and`/`or` inside it as in a test (when `bool` is the
            # builtin: branches.truth_call), so `bool(i < vl and (vm or bit))` merges
            truth = _lambda(self.condition(copy.deepcopy(node.args[0])))
            return ast.copy_location(
                _call("truth_call", self.visit(node.func), truth, _lambda(self.visit(node.args[0]))), node
            )
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in FRAME_FUNCTIONS:
            return node
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            args = [
                ast.Tuple([_argument_tag(a), a.value if isinstance(a, ast.Starred) else a], ast.Load())
                for a in node.args
            ]
            call = _call("call_star", node.func, ast.List(args, ast.Load()), keywords=node.keywords)
        else:
            call = _call("call", node.func, *node.args, keywords=node.keywords)
        return ast.copy_location(call, node)

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(_call("getitem", node.value, _slice_value(node.slice)), node)
        return node

    def visit_Lambda(self, node):
        self.generic_visit(node)
        return node

    def _filtered(self, node, as_list: bool):
        """[E for X in I if C] with its filter on the last loop: each element with its
        condition (`__vx__.maybe`), collected by `__vx__.filtered` (a plain list or iterator
        when every condition is concrete; else the values with their conditions, which max,
        min, sum, any, all, len and for loops take)."""
        for generator in node.generators:
            generator.iter = self.visit(generator.iter)
            generator.ifs = [self.condition(test) for test in generator.ifs]
        node.elt = self.visit(node.elt)
        last = node.generators[-1]
        if not last.ifs or any(g.ifs for g in node.generators[:-1]) or last.is_async:
            return node
        test = last.ifs[-1]
        for earlier in reversed(last.ifs[:-1]):
            test = _call("all_of", earlier, _lambda(test), self.sites.new(node))
        last.ifs = []
        element = _call("maybe", test, _lambda(node.elt))
        inner = ast.ListComp(element, node.generators)
        return ast.copy_location(_call("filtered", inner, ast.Constant(as_list)), node)

    def visit_ListComp(self, node):
        return self._filtered(node, True)

    def visit_GeneratorExp(self, node):
        return self._filtered(node, False)


# Calls that read their caller's frame: not wrapped.
FRAME_FUNCTIONS = {"super", "locals", "globals", "vars", "dir", "eval", "exec", "breakpoint"}


def _slice_value(node):
    """A subscript's index as an expression (`a:b` is slice(a, b), in tuples too)."""
    if isinstance(node, ast.Slice):
        parts = [p if p is not None else ast.Constant(None) for p in (node.lower, node.upper, node.step)]
        return ast.copy_location(ast.Call(_rt("slice"), parts, []), node)
    if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Slice) for e in node.elts):
        return ast.copy_location(ast.Tuple([_slice_value(e) for e in node.elts], ast.Load()), node)
    return node


def _argument_tag(arg) -> ast.Constant:
    return ast.Constant("*" if isinstance(arg, ast.Starred) else "")


# Statements ----------------------------------------------------------------------------------


class _Scope:
    """What the statement rewriting of one function knows."""

    def __init__(self, declared, returns: bool, body=()):
        self.declared = declared  # names declared global or nonlocal
        self.returns = returns  # returns become flags
        self.flags = itertools.count()
        self.sites: list = []  # the branch sites of this function
        # for _dead_at_back_edge: every load of a name (the original nodes), the names a
        # nested function or lambda reads from here or that are deleted, and whether the
        # function reads its own frame (locals(), eval ...)
        self.loads: list = []
        self.kept: set = set(declared)
        self.frame_read = False
        for node in _walk_scope(body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.loads.append((node.id, id(node)))
                if node.id in FRAME_FUNCTIONS:
                    self.frame_read = True
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Del):
                self.kept.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                self.kept.update(_free_names(node))


def _walk_scope(stmts):
    """The nodes of a function body, not entering nested functions, lambdas or classes
    (which are yielded themselves)."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def _free_names(node) -> set:
    """Names a nested function, lambda or class reads that it does not bind itself (a
    superset: every load not of its parameters or of a name it stores)."""
    loads, bound = set(), set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
    return loads - bound


def _names_in(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.arg for n in ast.walk(node) if isinstance(n, ast.arg)
    }


def _dead_at_back_edge(loop, scope) -> set:
    """Names of a loop body whose value from the round before is never read: each is first
    met in the body as the target of a top-level assignment (so every round that reads it
    stored it first), and it is read nowhere outside the body (nor by a nested function,
    nor through the frame). Where a merged branch of the body's rest assigns one, the value
    from where the branch does not run need not be merged in (branches.branch `dead`): a
    loop's temporaries would otherwise grow an if-then-else per round."""
    if scope.frame_read:
        return set()
    inside = {id(n) for s in loop.body for n in ast.walk(s)}
    found, seen = set(), set()
    for stmt in loop.body:
        if isinstance(stmt, ast.Assign) and all(
            isinstance(t, ast.Name)
            or (isinstance(t, ast.Tuple) and all(isinstance(e, ast.Name) for e in t.elts))
            for t in stmt.targets
        ):
            seen |= _names_in(stmt.value)
            for name in [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]:
                if name not in seen:
                    found.add(name)
                seen.add(name)
        else:
            seen |= _names_in(stmt)
    outside = {name for name, node in scope.loads if node not in inside}
    return found - outside - scope.kept


class Rewriter:
    """Rewrites a module's AST (module docstring)."""

    def __init__(self, filename: str):
        self.sites = _Sites(filename)
        self.expressions = Expressions(self.sites)

    def module(self, tree: ast.Module) -> ast.Module:
        tree.body = [self.top(s) for s in tree.body]
        return ast.fix_missing_locations(tree)

    # outside functions: expressions only, functions inside rewritten
    def top(self, stmt):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.function(stmt)
        if isinstance(stmt, ast.ClassDef):
            stmt.body = [self.top(s) for s in stmt.body]
            stmt.decorator_list = [self.expr(d) for d in stmt.decorator_list]
            stmt.bases = [self.expr(b) for b in stmt.bases]
            return stmt
        for field, value in ast.iter_fields(stmt):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(stmt, field, [self.top(s) for s in value])
            elif isinstance(value, ast.expr):
                setattr(stmt, field, self.expr(value))
            elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                setattr(stmt, field, [self.expr(v) for v in value])
            elif isinstance(value, list) and value and isinstance(value[0], ast.ExceptHandler):
                for handler in value:
                    handler.body = [self.top(s) for s in handler.body]
        return stmt

    def expr(self, node):
        return self.expressions.visit(node) if node is not None else None

    def function(self, node):
        node.decorator_list = [self.expr(d) for d in node.decorator_list]
        node.args = self.expressions.visit(node.args)
        if isinstance(node, ast.AsyncFunctionDef) or _has(
            ast.Module(node.body, []), (ast.Yield, ast.YieldFrom, ast.Await)
        ):
            node.body = [self.top(s) for s in node.body]  # a generator: its statements as written
            return node
        declared = set()
        for n in ast.walk(ast.Module(node.body, [])):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                declared.update(n.names)
        scope = _Scope(declared, returns=_has(ast.Module(node.body, []), ast.Return), body=node.body)
        body = self.block(node.body, scope, loop=None)
        if scope.returns:
            sites = ast.Tuple([s for s in scope.sites], ast.Load())
            body = (
                [
                    _assign(f"{FLAG_PREFIX}ret", ast.Constant(False)),
                    _assign(f"{FLAG_PREFIX}val", _rt("UNSET")),
                ]
                + body
                + [ast.Return(_call("result", _name(f"{FLAG_PREFIX}ret"), _name(f"{FLAG_PREFIX}val"), sites))]
            )
        node.body = body
        return node

    # a block: each statement rewritten; after one that may set a flag, the rest guarded
    def block(self, stmts, scope, loop, dead=frozenset()):
        """`dead`: for a loop body's own block, its names of _dead_at_back_edge not yet
        met in the statements before."""
        out = []
        for index, stmt in enumerate(stmts):
            met = _names_in(stmt) if dead else set()
            rewritten, flags = self.statement(stmt, scope, loop)
            out.extend(rewritten)
            dead = dead - met
            if flags and index + 1 < len(stmts):
                rest = self.block(stmts[index + 1 :], scope, loop, dead)
                out.extend(self.guarded(flags, rest, scope, stmt, dead))
                break
        return out or [ast.Pass()]

    def guarded(self, flags, body, scope, origin, dead=frozenset()):
        """`if not any(flags): body`, the test asked of the runtime (so it may merge)."""
        test = _call("live", *[_name(f) for f in flags])
        return self.branch_statement(
            ast.copy_location(ast.If(test, body, []), origin), scope, rewritten=True, dead=dead
        )

    def statement(self, stmt, scope, loop):
        """(statements, the flags it may set)."""
        if isinstance(stmt, ast.Return) and scope.returns:
            value = self.expr(stmt.value) if stmt.value is not None else ast.Constant(None)
            return [
                ast.copy_location(_assign(f"{FLAG_PREFIX}val", value), stmt),
                ast.copy_location(_assign(f"{FLAG_PREFIX}ret", ast.Constant(True)), stmt),
            ], [f"{FLAG_PREFIX}ret"]
        if isinstance(stmt, ast.Continue) and loop is not None:
            return [ast.copy_location(_assign(loop[0], ast.Constant(True)), stmt)], [loop[0]]
        if isinstance(stmt, ast.Break) and loop is not None:
            return [ast.copy_location(_assign(loop[1], ast.Constant(True)), stmt)], [loop[1]]
        if isinstance(stmt, ast.If):
            stmt.test = self.expressions.condition(stmt.test)
            flags = self.flags_set(stmt.body + stmt.orelse, scope, loop)
            stmt.body = self.block(stmt.body, scope, loop)
            stmt.orelse = self.block(stmt.orelse, scope, loop) if stmt.orelse else []
            return self.branch_statement(stmt, scope, rewritten=True), flags
        if isinstance(stmt, (ast.For, ast.While)):
            flags = [f"{FLAG_PREFIX}ret"] if scope.returns and _has(stmt, ast.Return) else []
            return self.loop(stmt, scope, loop), flags
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return [self.function(stmt)], []
        if isinstance(stmt, ast.ClassDef):
            return [self.top(stmt)], []
        if isinstance(stmt, ast.Assign) and any(_stores_into(t) for t in stmt.targets):
            return self.stores(stmt), []
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, (ast.Subscript, ast.Attribute)):
            return self.augmented_store(stmt), []
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            value = _call(
                "inplace", _name(stmt.target.id), ast.Constant(type(stmt.op).__name__), self.expr(stmt.value)
            )
            return [ast.copy_location(_assign(stmt.target.id, value), stmt)], []
        if isinstance(stmt, ast.Assert):
            test = _call(
                "assert_",
                self.expressions.condition(stmt.test),
                _lambda(self.expr(stmt.msg) if stmt.msg else ast.Constant(None)),
            )
            return [ast.copy_location(ast.Expr(test), stmt)], []
        if isinstance(stmt, (ast.Try, ast.With)):
            # their own control flow: statements rewritten inside, flags never cross them
            return [self.top_in(stmt, scope, loop)], []
        return [self.top(stmt)], []

    def top_in(self, stmt, scope, loop):
        """A try/with statement: its blocks rewritten, the control flow inside kept as written
        (a `return` there stays a return: the flag form would not leave the block)."""
        inner = _Scope(scope.declared, returns=False)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if block:
                setattr(stmt, field, self.block(block, inner, None))
        for handler in getattr(stmt, "handlers", []):
            handler.body = self.block(handler.body, inner, None)
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                item.context_expr = self.expr(item.context_expr)
        return stmt

    def flags_set(self, stmts, scope, loop):
        flags = []
        if scope.returns and _has(ast.Module(stmts, []), ast.Return):
            flags.append(f"{FLAG_PREFIX}ret")
        if loop is not None:
            finder = _Escapes()
            for s in stmts:
                finder.visit(s)
            for name, kind in ((loop[0], ast.Continue), (loop[1], ast.Break)):
                if _shallow_has(stmts, kind):
                    flags.append(name)
        return flags

    def branch_statement(self, stmt: ast.If, scope, rewritten: bool, dead=frozenset()):
        """The rewritten `if` (module docstring)."""
        site = self.sites.new(stmt)
        scope.sites.append(site)
        test = _call("test", stmt.test, site)
        # the user's names and the control flags; the rewrite's own temporaries (a branch's
        # condition and functions, store temporaries) live inside one branch only
        names = [
            n
            for n in assigned(stmt.body + stmt.orelse)
            if not n.startswith(FLAG_PREFIX)
            or n[len(FLAG_PREFIX) :].startswith(("ret", "val", "cont", "brk"))
        ]
        mergeable = (
            not escapes(stmt.body + stmt.orelse)
            and not (set(names) & scope.declared)
            and not any(n == RUNTIME for n in names)
        )
        if not mergeable:
            return [
                ast.copy_location(ast.If(_call("decide", test, site), stmt.body, stmt.orelse or []), stmt)
            ]
        number = next(scope.flags)
        condition = f"{FLAG_PREFIX}c{number}"
        then_name, else_name = f"{FLAG_PREFIX}then{number}", f"{FLAG_PREFIX}else{number}"

        def branch_function(name, body):
            args = ast.arguments([], [ast.arg(n) for n in names], None, [], [], None, [])
            out = ast.Return(
                _call(
                    "out",
                    ast.Call(_name("locals"), [], []),
                    ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
                )
            )
            return ast.FunctionDef(
                name=name,
                args=args,
                body=list(body or [ast.Pass()]) + [out],
                decorator_list=[],
                returns=None,
                type_comment=None,
            )

        dead_names = [n for n in names if n in dead]
        merged = _call(
            "branch",
            _name(condition),
            _name(then_name),
            _name(else_name),
            ast.Call(_name("locals"), [], []),
            ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
            site,
            *([ast.Tuple([ast.Constant(n) for n in dead_names], ast.Load())] if dead_names else []),
        )
        symbolic = [branch_function(then_name, stmt.body), branch_function(else_name, stmt.orelse)]
        if names:
            symbolic.append(
                ast.Assign([ast.Tuple([_name(n, ast.Store()) for n in names], ast.Store())], merged)
            )
        else:
            symbolic.append(ast.Expr(merged))
        result = [
            _assign(condition, test),
            ast.If(
                _is(condition, True),
                stmt.body,
                [ast.If(_is(condition, False), stmt.orelse or [ast.Pass()], symbolic)],
            ),
        ]
        for node in result:
            ast.copy_location(node, stmt)
        return result

    def loop(self, stmt, scope, loop):
        number = next(scope.flags)
        cont, brk = f"{FLAG_PREFIX}cont{number}", f"{FLAG_PREFIX}brk{number}"
        inner = (cont, brk)
        flags = [brk] + (
            [f"{FLAG_PREFIX}ret"] if scope.returns and _has(ast.Module(stmt.body, []), ast.Return) else []
        )
        dead = frozenset(_dead_at_back_edge(stmt, scope))
        body = self.block(stmt.body, scope, inner, dead)
        guarded_body = [_assign(cont, ast.Constant(False))] + self.guarded(flags, body, scope, stmt)
        tests = [_is(f, True) for f in flags]
        stop = ast.If(ast.BoolOp(ast.Or(), tests) if len(tests) > 1 else tests[0], [ast.Break()], [])
        orelse = (
            self.guarded([brk] + flags[1:], self.block(stmt.orelse, scope, loop), scope, stmt)
            if stmt.orelse
            else []
        )
        if isinstance(stmt, ast.For):
            # iterate yields (item, stop): stop is False, or for a symbolic range(n) `i >= n`
            stopped = f"{FLAG_PREFIX}s{number}"
            guarded_body = [_assign(cont, ast.Constant(False))] + self.guarded(
                flags + [stopped], body, scope, stmt, dead
            )
            target = ast.Tuple([stmt.target, _name(stopped, ast.Store())], ast.Store())
            new = ast.For(target, _call("iterate", self.expr(stmt.iter)), guarded_body + [stop], [])
        else:
            # while: each round asks the test; a concrete false ends the loop, a symbolic one
            # guards the round (the runtime bounds how many rounds a symbolic test may keep)
            stopped = f"{FLAG_PREFIX}w{number}"
            guarded_body = [
                _assign(cont, ast.Constant(False)),
                _assign(
                    stopped,
                    _call(
                        "while_stop",
                        self.expressions.condition(stmt.test),
                        self.sites.new(stmt),
                        *[_name(f) for f in flags],
                    ),
                ),
                ast.If(_is(stopped, True), [ast.Break()], []),
            ] + self.guarded(flags + [stopped], body, scope, stmt, dead)
            new = ast.While(ast.Constant(True), guarded_body + [stop], [])
        ast.copy_location(new, stmt)
        return [ast.copy_location(_assign(brk, ast.Constant(False)), stmt), new] + orelse


def _shallow_has(stmts, kind) -> bool:
    """A break/continue of this loop level in the block (not in a nested loop or function)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if isinstance(
            n,
            (
                ast.For,
                ast.While,
                ast.AsyncFor,
                ast.FunctionDef,
                ast.AsyncFunctionDef,
                ast.Lambda,
                ast.ClassDef,
            ),
        ):
            if isinstance(n, (ast.For, ast.While, ast.AsyncFor)):
                stack.extend(n.orelse)
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False


def _stores_into(target) -> bool:
    if isinstance(target, (ast.Subscript, ast.Attribute)):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_stores_into(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _stores_into(target.value)
    return False


def _store_statements(target, value_name: str, rewriter, counter):
    """Statements assigning the value held in `value_name` to `target` (subscript and
    attribute stores through the runtime, tuples unpacked first)."""
    if isinstance(target, ast.Subscript):
        return [
            ast.Expr(
                _call("setitem", rewriter.expr(target.value), rewriter.expr(target.slice), _name(value_name))
            )
        ]
    if isinstance(target, ast.Attribute):
        return [
            ast.Expr(
                _call("setattr", rewriter.expr(target.value), ast.Constant(target.attr), _name(value_name))
            )
        ]
    if isinstance(target, (ast.Tuple, ast.List)):
        parts, out = [], []
        for element in target.elts:
            if _stores_into(element):
                temp = f"{FLAG_PREFIX}t{next(counter)}"
                parts.append(
                    ast.Starred(_name(temp, ast.Store()), ast.Store())
                    if isinstance(element, ast.Starred)
                    else _name(temp, ast.Store())
                )
                out.extend(
                    _store_statements(
                        element.value if isinstance(element, ast.Starred) else element,
                        temp,
                        rewriter,
                        counter,
                    )
                )
            else:
                parts.append(element)
        return [ast.Assign([type(target)(parts, ast.Store())], _name(value_name))] + out
    return [ast.Assign([target], _name(value_name))]


_TEMPS = itertools.count()


def _rewrite_stores(self, stmt):
    temp = f"{FLAG_PREFIX}v{next(_TEMPS)}"
    out = [_assign(temp, self.expr(stmt.value))]
    for target in stmt.targets:
        out.extend(_store_statements(target, temp, self, _TEMPS))
    return [ast.copy_location(s, stmt) for s in out]


def _rewrite_augmented(self, stmt):
    target = stmt.target
    op = ast.Constant(type(stmt.op).__name__)
    if isinstance(target, ast.Subscript):
        call = _call(
            "setitem_op", self.expr(target.value), self.expr(target.slice), op, self.expr(stmt.value)
        )
    else:
        call = _call(
            "setattr_op", self.expr(target.value), ast.Constant(target.attr), op, self.expr(stmt.value)
        )
    return [ast.copy_location(ast.Expr(call), stmt)]


Rewriter.stores = _rewrite_stores
Rewriter.augmented_store = _rewrite_augmented


def rewrite(source: str, filename: str) -> ast.Module:
    tree = ast.parse(source, filename)
    return Rewriter(filename).module(tree)


def compile_user(source: str, filename: str):
    """The code object of a user's module, rewritten (module docstring)."""
    return compile(rewrite(source, filename), filename, "exec", dont_inherit=True)


# Loading the user's files rewritten ----------------------------------------------------------

import importlib.abc  # noqa: E402  (the loader's own imports, kept with it)
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

REWRITTEN_FILES: set = set()  # absolute paths of the user files loaded rewritten
_ROOTS: set = set()  # folders whose modules are the user's (rewritten on import)


def _project_folders():
    found = set()
    for name in (
        "vredmax",
        "vredmax.spec",
        "vredmax.impl",
        "vredmax.proofs",
        "vredmax.presentation",
        "vredmax.platforms",
    ):
        module = sys.modules.get(name) or importlib.import_module(name)
        for folder in getattr(module, "__path__", []):
            found.add(os.path.abspath(folder))
    return found


class RewritingLoader(importlib.machinery.SourceFileLoader):
    """Loads a user's file rewritten (never from or into a bytecode cache)."""

    def get_code(self, fullname):
        path = self.get_filename(fullname)
        source = importlib.util.decode_source(self.get_data(path))
        REWRITTEN_FILES.add(os.path.abspath(path))
        return compile_user(source, path)

    def exec_module(self, module):
        from vredmax.proofs.python import branches

        module.__dict__[RUNTIME] = branches
        super().exec_module(module)


class _UserFinder(importlib.abc.MetaPathFinder):
    """Finds a module under one of the user's folders (not the project's, not an installed
    package) and loads it rewritten."""

    def find_spec(self, name, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        origin = getattr(spec, "origin", None) if spec is not None else None
        if not origin or not origin.endswith(".py") or "site-packages" in origin:
            return None
        origin = os.path.abspath(origin)
        if not any(origin.startswith(root + os.sep) for root in _ROOTS):
            return None
        if any(origin.startswith(folder + os.sep) for folder in _project_folders()):
            return None
        spec.loader = RewritingLoader(name, origin)
        return spec


_FINDER = _UserFinder()


def user_folder(folder: str) -> None:
    """Modules imported from `folder` (and below) are the user's: loaded rewritten."""
    _ROOTS.add(os.path.abspath(folder))
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def module_from_file(name: str, path: str):
    """The user's file as a module, rewritten (not yet executed: exec it with its loader)."""
    loader = RewritingLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    return spec, importlib.util.module_from_spec(spec)
