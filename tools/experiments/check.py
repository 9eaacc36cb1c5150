#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks an experiment file (experiments/NAME.yaml) before anything runs.

    check.py [--fgsim PATH] FILE...       (tools/experiment.sh --check FILE does this)

Checked: the YAML itself (one document, no key given twice); the keys the workflow knows
(top level, study, plot, paper, cases, relative, area, samples, summary: what experiment.py
reads); every --set value of `fixed`, `grid`, `cases` and `area.defaults` against fgsim's own
parameter list (`fgsim params --json`: name, type, range, choices; parsed as fgsim parses
it), a name with {workload} once for every workload that reaches it (the name it gives;
any other {placeholder} is an error), workloads and presets against `fgsim list`, seeds as
`--seed` values; metric expressions (syntax, a root the stats JSON has, `config.` naming a
parameter); the columns that `plot`, `relative`, `samples` and `summary` name (a plot
`from: summary` names the summary's columns). A problem is one line
`FILE:LINE: KEY: message` on standard error and exit 2; a valid file is one line on
standard output (studies and points) and exit 0.

Without an fgsim (experiment.load, the table, plot and page jobs) everything but the
parameters, workloads and presets is checked. What fgsim refuses only when it runs
(settings that do not apply together, a graph file that does not parse, resource
limits) is not seen here: such a point fails the workflow with fgsim's own line."""
import difflib
import json
import math
import os
import re
import subprocess
import sys

import yaml

# A YAML integer of any length is read (Python refuses more than 4,300 digits by default), so
# that a huge value is one line, out of range, not a traceback.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
import experiment as X  # noqa: E402  (experiment.load imports this module only when it runs)

# What experiment.py reads: an unknown key is an error (it would be silently ignored).
TOP_KEYS = ("title", "page", "intro", "studies")
STUDY_KEYS = ("name", "title", "workload", "preset", "fixed", "grid", "cases", "seeds", "metrics", "plot",
              "paper", "relative", "area", "samples", "summary", "table", "text")
PLOT_KEYS = ("x", "y", "series", "logx", "logy", "marker", "xlabel", "ylabel", "from", "mark_x", "pareto", "cases")
PLOT_FROM = ("summary",)
PAPER_KEYS = ("source", "values")
RELATIVE_KEYS = ("of", "to", "name", "invert", "by")
RELATIVE_NEEDS = ("of", "to", "name")
SUMMARY_KEYS = ("by", "of", "stats", "relative")
SUMMARY_RELATIVE_KEYS = ("of", "to", "name", "invert")
AREA_KEYS = ("of", "part", "lanes", "defaults")
AREA_PARTS = ("unit", "redistribution")
SAMPLES_KEYS = ("x", "per", "y", "percent_of")
# Keys of fixed/grid/cases that are not parameters: experiment.points() takes them out.
SWEPT_NON_PARAMS = ("workload", "preset")
# Metric roots (experiment._path_value): stats.<stat name> ('*' sums or pools), config.<parameter>,
# result.<workload result>; any other root is a section of fgsim's stats JSON
# (systemc/top/report.cpp) walked key by key. sim has these keys only.
METRIC_ROOTS = ("config", "host", "kernels", "result", "sim", "stats", "totals", "workload")
SIM_KEYS = ("time_ns", "time_ps", "device_bytes.estimate", "device_bytes.peak")
# Columns the rows carry besides the study's own (experiment.rows).
RESERVED_COLUMNS = ("study", "case", "seed", "sample", "summary")
# A placeholder in a setting's name ({workload}; experiment.settings replaces it).
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# A file expanding to more runs than this is refused (the workflow enumerates them all).
MAX_POINTS = 100_000
# YAML aliases may repeat a part of the file, within this many nodes once expanded (as fgsim's
# config files: docs/reliability.md). Ten anchors of ten aliases each would otherwise be 10^10
# nodes: the check used to spend 19 s and 580 MB on seven to show one value in a message.
MAX_NODES = 100_000

EXIT_BAD_INPUT = 2


class Problem(SystemExit):
    """One problem with an experiment file: `FILE:LINE: KEY: message` (a SystemExit, so
    that experiment.load's callers stop with it as before)."""

    def __init__(self, path, line, key, message):
        self.path, self.line, self.key, self.message = path, line, key, message
        place = shown(path, 200) + (f":{line}" if line else "")
        super().__init__(f"{place}: {shown(key)}: {message}" if key is not None else f"{place}: {message}")

    def __str__(self):
        return self.code



def _positive_real(v):
    """A YAML number that is a positive finite double (experiment.py divides by it as a float): an
    integer past the double's range (10**400) is no such number, and says so rather than raising."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        x = float(v)
    except OverflowError:
        return False
    return math.isfinite(x) and x > 0

def shown(value, limit=64):
    """A user's value in a message: at most `limit` characters, then its length; control
    characters escaped, so that a message is always one line (as fgsim's shown())."""
    s = value if isinstance(value, str) else X.fmt_value(value)
    cut = len(s) > limit
    out = "".join(c if c.isprintable() else (c.encode("unicode_escape").decode("ascii") if ord(c) < 0x10000
                                              else f"\\U{ord(c):08x}") for c in s[:limit])
    return out + (f"... ({len(s.encode('utf-8', 'surrogatepass'))} bytes)" if cut else "")


def _close(word, known):
    if not isinstance(word, str):
        return ""
    m = difflib.get_close_matches(word, [k for k in known if isinstance(k, str)], n=1, cutoff=0.75)
    return f"; did you mean '{shown(m[0])}'?" if m else ""


# ---------------------------------------------------------------- fgsim's parameters, workloads, presets

class Catalog:
    """What one fgsim binary knows: parameters (name -> `fgsim params --json` entry), workloads
    and presets (`fgsim list`)."""

    def __init__(self, params, workloads, presets, fgsim=None):
        self.params, self.workloads, self.presets, self.fgsim = params, workloads, presets, fgsim


_CATALOGS = {}


def catalog(fgsim):
    """The Catalog of the fgsim binary at `fgsim`; a Problem (no line) when it cannot be read."""
    fgsim = os.path.abspath(fgsim)
    if fgsim in _CATALOGS:
        return _CATALOGS[fgsim]
    if not os.path.exists(fgsim):
        raise Problem("experiment", None, None, f"fgsim not found at {shown(fgsim, 200)} (build it first: make build)")

    def run(*args):
        try:
            r = subprocess.run([fgsim, *args], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as e:
            raise Problem("experiment", None, None, f"cannot run {shown(fgsim, 200)}: {shown(str(e), 200)}")
        if r.returncode:
            first = (r.stderr.strip().splitlines() or [""])[0]
            raise Problem("experiment", None, None, f"`fgsim {' '.join(args)}` failed (exit {r.returncode}): "
                          f"{shown(first, 200)}")
        return r.stdout

    try:
        params = {p["name"]: p for p in json.loads(run("params", "--json"))}
        # An old name of a parameter (fgsim sets the parameter) checks as the parameter.
        for p in list(params.values()):
            for alias in p.get("aliases", []):
                params[alias] = p
    except (ValueError, TypeError, KeyError) as e:
        raise Problem("experiment", None, None, f"`fgsim params --json` gave no parameter list: {shown(str(e))}")
    # `fgsim list`: a heading ("Workloads (fgsim run NAME):", "Presets (--preset NAME):", ...)
    # over lines "  NAME  description".
    sections, current = {}, None
    for line in run("list").splitlines():
        if line and not line[0].isspace():
            current = line.split(" ", 1)[0].rstrip(":").lower()
            sections[current] = set()
        elif line.strip() and current is not None:
            sections[current].add(line.split()[0])
    if not sections.get("workloads") or not sections.get("presets"):
        raise Problem("experiment", None, None, "`fgsim list` names no workloads or presets")
    _CATALOGS[fgsim] = Catalog(params, sections["workloads"], sections["presets"], fgsim)
    return _CATALOGS[fgsim]


def _bound(x):
    # Whole bounds in full (1048576, not 1.04858e+06), as fgsim's own message gives them.
    return f"{x:.0f}" if abs(x) < 2.0**64 and float(x).is_integer() else f"{x:g}"


def _describe_range(p):
    lo, hi = p.get("min"), p.get("max")
    if lo is not None and hi is not None:
        return f"[{_bound(lo)}, {_bound(hi)}]"
    if lo is not None:
        return f">= {_bound(lo)}"
    if hi is not None:
        return f"<= {_bound(hi)}"
    return ""


_DEC, _HEX = set("0123456789"), set("0123456789abcdefABCDEF")
_BYTE_MULT = {"": 1, "K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEXFLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?\Z")


class _TooBig:
    """Digits past 2^64 - 1 with a suffix the parameter takes: an integer, but none a parameter holds."""

    def __init__(self, neg):
        self.neg = neg


def _integer(p, t):
    """fgsim's parse_integer (systemc/sim/config.cpp): decimal or 0x hex; parameters in
    bytes also take K/M/G/T/P with an optional B or iB. None when it is not one, a _TooBig
    for digits past 2^64 - 1 (before any suffix)."""
    if not t:
        return None
    pos, neg = 0, False
    if t[0] in "+-":
        neg, pos = t[0] == "-", 1
    base = 10
    if len(t) > pos + 2 and t[pos] == "0" and t[pos + 1] in "xX":
        base, pos = 16, pos + 2
    end = pos
    while end < len(t) and t[end] in (_HEX if base == 16 else _DEC):
        end += 1
    if end == pos:
        return None
    # Past 20 decimal or 16 hex digits (leading zeros aside) the magnitude is past 2^64 - 1; int() is
    # not asked (Python refuses to convert more than 4,300 digits).
    digits = t[pos:end].lstrip("0")
    mag = None if len(digits) > (16 if base == 16 else 20) else int(digits or "0", base)
    s = t[end:]
    if s:
        if p.get("unit") != "B":
            return None
        if s == "B":
            s = ""
        elif len(s) >= 2 and s.endswith("iB"):
            s = s[:-2]
        elif s.endswith("B"):
            s = s[:-1]
        if s not in _BYTE_MULT:
            return None
    if mag is None or mag > 2**64 - 1:
        return _TooBig(neg)
    return (-1 if neg else 1) * mag * _BYTE_MULT[s]


def value_error(p, raw):
    """Why fgsim refuses `raw` (the text after `--set NAME=`) for parameter p (an entry of
    `fgsim params --json`), in fgsim's words; None when it takes it. Mirrors parse_value in
    systemc/sim/config.cpp."""
    name, t = p["name"], raw.strip(" \t\r\n")

    def fail(what):
        return f"{what} for '{name}', got '{shown(raw)}'"

    def range_message():
        unit = p.get("unit") or ""
        return f"value {shown(t)} for '{name}' is out of range {_describe_range(p)}" + (f" {unit}" if unit else "")

    def out_of_range(x):
        lo, hi = p.get("min"), p.get("max")
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            return range_message()
        return None

    kind = p["type"]
    if kind in ("int", "uint"):
        x = _integer(p, t)
        if x is None:
            return fail("expected an integer number of bytes (e.g. 16384 or 16KiB)" if p.get("unit") == "B"
                        else "expected an integer")
        too_big = isinstance(x, _TooBig)
        neg = x.neg if too_big else x < 0
        if kind == "uint" and neg:
            return fail("expected a non-negative integer")
        # Past what the type holds: out of the range when the sign passes a bound, else too large.
        if too_big or (x > 2**64 - 1 if kind == "uint" else (x > 2**63 - 1 or x < -2**63)):
            if (not neg and p.get("max") is not None) or (neg and p.get("min") is not None):
                return range_message()
            return fail("integer too large (above 2^64 - 1)" if kind == "uint" else "integer too large")
        return out_of_range(x)
    if kind == "real":
        # strtod in the C locale, all of the text; overflow and underflow (ERANGE) refused.
        if _FLOAT.match(t):
            x = float(t)
            nonzero = any(c in "123456789" for c in re.split(r"[eE]", t)[0])
        elif _HEXFLOAT.match(t):
            x = float.fromhex(t)
            nonzero = any(c not in "0.+-xX" for c in re.split(r"[pP]", t)[0])
        else:
            return fail("expected a number")
        if not math.isfinite(x) or (nonzero and abs(x) < sys.float_info.min):
            return fail("expected a number")
        return out_of_range(x)
    if kind == "bool":
        if t.lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
            return None
        return fail("expected true or false")
    if kind == "enum":
        if t in p.get("choices", []):
            return None
        return fail("expected one of {" + ", ".join(p.get("choices", [])) + "}")
    return None  # string: any text


# ---------------------------------------------------------------- the YAML, with line numbers

class Marked:
    """A value of the experiment file with its node (line numbers)."""

    def __init__(self, value, node, loader):
        self.value, self.node, self.loader = value, node, loader
        self.line = node.start_mark.line + 1
        self.texts = {}  # a mapping's keys as written (`on:` is the boolean True)

    def pairs(self):
        """A mapping's (key, key line, Marked value), in the file's order."""
        out = {}
        for kn, vn in self.node.value:
            k = self.loader.construct_object(kn, deep=True)
            out[k] = (kn.start_mark.line + 1, Marked(self.value[k], vn, self.loader))
            if isinstance(kn, yaml.ScalarNode):
                self.texts[k] = kn.value
        return [(k, line, m) for k, (line, m) in out.items()]

    def text(self, k):
        """A key of this mapping as written."""
        return k if isinstance(k, str) else self.texts.get(k, X.fmt_value(k))

    def items(self):
        """A sequence's Marked items."""
        return [Marked(v, n, self.loader) for v, n in zip(self.value, self.node.value)]


def _line_of(e, raw):
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    if mark is not None:
        return mark.line + 1
    pos = getattr(e, "position", None)  # a ReaderError: a byte (bad UTF-8) or a character's index
    if not isinstance(pos, int):
        return 1
    try:
        return raw.decode("utf-8")[:pos].count("\n") + 1
    except UnicodeDecodeError:
        return raw[:pos].count(b"\n") + 1


def _yaml_message(e):
    if isinstance(e, yaml.reader.ReaderError):
        c = e.character
        return f"{e.reason} (character #x{c if isinstance(c, int) else ord(c):02x})"
    what = " ".join(x for x in (getattr(e, "context", None), getattr(e, "problem", None)) if x)
    return what or str(e).split("\n")[0]


def _expansion(node, path):
    """A Problem when the document's aliases expand it past MAX_NODES nodes (naming the line of
    the smallest part that does), or when an alias refers to the node that holds it."""
    size, state = {}, {}
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        children = ([c for kv in n.value for c in kv] if isinstance(n, yaml.MappingNode)
                    else n.value if isinstance(n, yaml.SequenceNode) else [])
        if done:
            size[id(n)] = 1 + sum(size[id(c)] for c in children)
            state[id(n)] = "done"
            if size[id(n)] > MAX_NODES:
                raise Problem(path, n.start_mark.line + 1, "yaml",
                              f"its aliases expand to more than {MAX_NODES:,} nodes")
            continue
        if state.get(id(n)) == "done":
            continue
        if state.get(id(n)) == "open":
            raise Problem(path, n.start_mark.line + 1, "yaml", "an alias refers to the node that holds it")
        state[id(n)] = "open"
        stack.append((n, True))
        stack += [(c, False) for c in children if state.get(id(c)) != "done"]
    return size[id(node)]


def _duplicates(node, path, seen):
    """A key given twice in one mapping is an error (YAML loaders keep the last silently)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, yaml.MappingNode):
            first = {}
            for kn, vn in n.value:
                if isinstance(kn, yaml.ScalarNode) and kn.tag != "tag:yaml.org,2002:merge":
                    k = (kn.tag, kn.value)
                    if k in first:
                        raise Problem(path, kn.start_mark.line + 1, kn.value,
                                      f"given twice (first at line {first[k]})")
                    first[k] = kn.start_mark.line + 1
                stack += [kn, vn]
        elif isinstance(n, yaml.SequenceNode):
            stack += n.value


def load_marked(path):
    """The experiment file as a Marked mapping; a Problem when it is not one YAML document."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Problem(path, None, None, f"cannot read: {shown(e.strerror or str(e), 200)}")
    loader = None
    try:
        loader = yaml.SafeLoader(raw)
        node = loader.get_single_node()
        if node is not None:
            _expansion(node, path)
            _duplicates(node, path, set())
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        raise Problem(path, _line_of(e, raw), "yaml", shown(_yaml_message(e), 200))
    except RecursionError:
        raise Problem(path, loader.get_mark().line + 1 if loader else 1, "yaml", "nested too deeply")
    if not isinstance(data, dict) or "studies" not in data:
        raise Problem(path, node.start_mark.line + 1 if node is not None else 1, "studies",
                      "an experiment needs a 'studies' list")
    return Marked(data, node, loader)


# ---------------------------------------------------------------- the check

class Result:
    def __init__(self, experiment, studies, points, runs):
        self.experiment, self.studies, self.points, self.runs = experiment, studies, points, runs

    def summary(self, path):
        return (f"{path}: ok, {self.studies} {'study' if self.studies == 1 else 'studies'}, "
                f"{self.points} {'point' if self.points == 1 else 'points'}")


class _Checker:
    def __init__(self, path, cat):
        self.path, self.cat = path, cat

    def fail(self, line, key, message):
        raise Problem(self.path, line, key, message)

    def keys(self, m, known, what):
        if not isinstance(m.value, dict):
            self.fail(m.line, what, f"expected a mapping of {', '.join(known)}")
        for k, line, _ in m.pairs():
            if k not in known:
                self.fail(line, m.text(k),
                          f"unknown {what} key{_close(k, known)} (known: {', '.join(known)})")

    def string(self, line, key, v, where, nonempty=True):
        if not isinstance(v, str) or (nonempty and not v.strip()):
            self.fail(line, key, f"expected {'a non-empty' if nonempty else 'a'} string{where}, got '{shown(v)}'")

    def scalar(self, line, key, v, where):
        if isinstance(v, (dict, list)) or v is None:
            self.fail(line, key, f"expected one value{where}, got {self.kind(v)}")

    @staticmethod
    def kind(v):
        return "a list" if isinstance(v, list) else "a mapping" if isinstance(v, dict) else \
            "no value" if v is None else f"'{shown(v)}'"

    # -- settings: --set NAME=VALUE, or workload / preset

    def setting(self, line, key, v, where, text=None, scope=None):
        """scope: where {workload} may be in the name (None: not here; "study": fixed and grid,
        whose settings every point of the study gets; a case's name: that case's points)."""
        if not isinstance(key, str):
            self.fail(line, text or X.fmt_value(key), f"expected a parameter name{where}")
        if isinstance(v, (dict, list)) or v is None:
            self.fail(line, key, f"expected one value{where}, got {self.kind(v)}")
        holders = PLACEHOLDER.findall(key)
        if holders:
            other = next((h for h in holders if h != X.WORKLOAD), None)
            if other is not None:
                self.fail(line, key, f"unknown placeholder '{shown(other)}' in a parameter name{where}: only "
                          f"{X.WORKLOAD} is replaced (by each run's workload)")
            if scope is None:
                self.fail(line, key, f"{X.WORKLOAD} is replaced in the names of fixed, grid and cases only{where}")
            self.deferred.append((line, key, v, where, scope))  # checked once the study's workloads are known
            return
        if key == "workload":
            return self.workload(line, v, where)
        if key == "preset":
            return self.preset(line, v, where)
        if key == "sim.seed":  # experiment.py gives every point --seed, which fgsim refuses beside it
            self.fail(line, key, f"a point's seed is the study's `seeds` (each point is run with --seed){where}")
        if self.cat is None:
            return
        p = self.cat.params.get(key)
        if p is None:
            self.fail(line, key, f"unknown parameter{where}{_close(key, self.cat.params)} (see `fgsim params`)")
        why = value_error(p, X.fmt_value(v))
        if why:
            self.fail(line, key, why + where)

    def workload(self, line, v, where):
        self.string(line, "workload", v, where)
        if self.cat is not None and v not in self.cat.workloads:
            self.fail(line, "workload", f"unknown workload '{shown(v)}'{where}{_close(v, self.cat.workloads)} "
                      "(see `fgsim list`)")

    def preset(self, line, v, where):
        self.string(line, "preset", v, where)
        if self.cat is not None and v not in self.cat.presets:
            self.fail(line, "preset", f"unknown preset '{shown(v)}'{where}{_close(v, self.cat.presets)} "
                      "(see `fgsim list`)")

    def seed(self, line, v, where):
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(line, "seeds", f"expected an integer seed{where}, got {self.kind(v)}")
        p = self.cat.params.get("sim.seed") if self.cat else None
        why = value_error(p, str(v)) if p else (None if v >= 0 else "expected a non-negative integer")
        if why:
            self.fail(line, "seeds", why + where)

    def case_list(self, item, cases, where):
        """A relative's `to` (item: (line, Marked)): a non-empty list of the study's cases."""
        line, lm = item
        if not isinstance(lm.value, list) or not lm.value:
            self.fail(line, "to", f"expected a list of case names{where}")
        for it in lm.items():
            if not isinstance(it.value, str) or it.value not in cases:
                self.fail(it.line, "to", f"'{shown(it.value)}' is not a case of the study{_close(it.value, cases)}"
                          f"{where}")
        return lm

    def names(self, item, key, known, what, where, empty=False):
        """A list of names (item: (line, Marked)), each one of `known`, none twice."""
        line, lm = item
        if not isinstance(lm.value, list) or (not lm.value and not empty):
            self.fail(line, key, f"expected a {'' if empty else 'non-empty '}list of names{where}, got "
                      f"{self.kind(lm.value)}")
        seen = {}
        for it in lm.items():
            v = it.value
            if not isinstance(v, str) or v not in known:
                self.fail(it.line, key, f"'{shown(v)}' is not {what}{_close(v, known)} (known: "
                          f"{', '.join(map(shown, known))}){where}")
            if v in seen:
                self.fail(it.line, key, f"'{shown(v)}' given twice{where}")
            seen[v] = it.line
        return list(lm.value)

    # -- metrics

    def metric_path(self, line, col, expr, path, where):
        head, _, rest = path.partition(".")
        if head not in METRIC_ROOTS:
            self.fail(line, col, f"metric '{shown(expr)}': unknown root '{shown(head)}'{_close(head, METRIC_ROOTS)} "
                      f"(known: {', '.join(r + '.' for r in METRIC_ROOTS)}){where}")
        if not rest:
            self.fail(line, col, f"metric '{shown(expr)}': '{shown(head)}' needs a name after it{where}")
        if "*" in rest and head != "stats":
            self.fail(line, col, f"metric '{shown(expr)}': '*' matches stat names only (stats.){where}")
        if head == "sim" and rest not in SIM_KEYS:
            self.fail(line, col, f"metric '{shown(expr)}': the stats JSON's sim has {', '.join(SIM_KEYS)}{where}")
        if head == "config" and self.cat is not None and rest not in self.cat.params:
            self.fail(line, col, f"metric '{shown(expr)}': unknown parameter '{shown(rest)}'"
                      f"{_close(rest, self.cat.params)}{where}")

    def metric(self, line, col, expr, where):
        if not isinstance(expr, str):
            self.fail(line, col, f"expected a metric expression{where}, got {self.kind(expr)}")
        m = X._EXPR.match(expr)  # the syntax experiment.metric evaluates
        if not m:
            self.fail(line, col, f"metric '{shown(expr)}': expected PATH, PATH / NUMBER, PATH * NUMBER or "
                      f"PATH / PATH{where}")
        lhs, _, rhs = m.groups()
        self.metric_path(line, col, expr, lhs, where)
        if rhs is not None:
            if X._NUMBER.match(rhs):
                try:
                    float(rhs)
                except ValueError:
                    self.fail(line, col, f"metric '{shown(expr)}': '{shown(rhs)}' is not a number{where}")
            else:
                self.metric_path(line, col, expr, rhs, where)

    # -- one study

    # -- {workload} in settings' names

    @staticmethod
    def workloads(s, case, bundle=None):
        """The workloads that the points of a study's case (None: of a study without cases)
        run, with the grid bundle `bundle` ((key, name); None: any): the bundle's own, the
        case's own, else the grid's (a list, or the bundles that set one), fixed's or the
        study's (experiment.settings)."""
        grid = s.get("grid") or {}
        if bundle is not None:
            bs = grid[bundle[0]][bundle[1]] or {}
            if "workload" in bs:
                return [bs["workload"]]
        sets = ((s.get("cases") or {}).get(case) or {}) if case is not None else {}
        if "workload" in sets:
            return [sets["workload"]]
        if isinstance(grid.get("workload"), list):
            return list(dict.fromkeys(grid["workload"]))
        from_bundles = [bs["workload"] for v in grid.values() if isinstance(v, dict) and bundle is None
                        for bs in v.values() if isinstance(bs, dict) and "workload" in bs]
        if from_bundles:
            return list(dict.fromkeys(from_bundles))
        if "workload" in (s.get("fixed") or {}):
            return [s["fixed"]["workload"]]
        return [s["workload"]] if "workload" in s else []

    def placeholders(self, s, fixed, grid, cases, where):
        """The settings whose names have {workload}: for every workload that reaches them, the
        name it gives must be a parameter taking the value, and must not be a name that another
        setting of the same point gives (twice in one mapping, or in the grid and in fixed or
        the case, whose value the grid's would override)."""
        case_names = list(cases) or [None]
        # A bundle's setting that is, for a workload it runs, a name fixed or the case sets.
        for c in case_names:
            for (gk, b), keys in self.bundle_lines.items():
                for w in self.workloads(s, c, (gk, b)):
                    before = {X.substitute(k, w): (what, line) for what, m in
                              (("fixed", fixed), (f"case '{shown(c)}'", cases.get(c, {}))) for k, line in m.items()}
                    for k, line in keys.items():
                        name = X.substitute(k, w)
                        if k not in ("workload", "preset") and name in before:
                            self.fail(line, k, f"is '{shown(name)}' for workload '{shown(w)}', also set in "
                                      f"{before[name][0]} (line {before[name][1]}): bundle '{shown(b)}' would "
                                      f"override it{where}")
        if not self.deferred:
            return
        for line, key, v, w_, scope in self.deferred if self.cat is not None else []:
            if isinstance(scope, tuple):  # a grid bundle's setting: (key, bundle name)
                runs = [w for c in case_names for w in self.workloads(s, c, scope)]
            else:
                runs = [w for c in (case_names if scope == "study" else [scope]) for w in self.workloads(s, c)]
            for w in dict.fromkeys(runs):
                name, why = X.substitute(key, w), f"{w_[:-1]}; '{shown(key)}' for workload '{shown(w)}')"
                p = self.cat.params.get(name)
                if p is None:
                    self.fail(line, name, f"unknown parameter{why}{_close(name, self.cat.params)} (see `fgsim params`)")
                err = value_error(p, X.fmt_value(v))
                if err:
                    self.fail(line, name, err + why)
        for c in case_names:
            for w in self.workloads(s, c):
                before = {}  # name -> (mapping, line, key as written) in fixed and the case
                for what, keys in (("fixed", fixed), (f"case '{shown(c)}'", cases.get(c, {})), ("grid", grid)):
                    mine = {}
                    for k, line in keys.items():
                        if k in ("workload", "preset"):
                            continue
                        name = X.substitute(k, w)
                        if name in mine:
                            self.fail(line, k, f"'{shown(k)}' and '{shown(mine[name][1])}' (line {mine[name][0]}) "
                                      f"both set '{shown(name)}' for workload '{shown(w)}'{where}")
                        mine[name] = (line, k)
                        if what == "grid" and name in before and X.WORKLOAD in k + before[name][2]:
                            self.fail(line, k, f"'{shown(k)}' is '{shown(name)}' for workload '{shown(w)}', also "
                                      f"set in {before[name][0]} (line {before[name][1]}): the grid's values would "
                                      f"override it{where}")
                    before.update({name: (what, line, k) for name, (line, k) in mine.items()})

    def bundles(self, key, line, v, gm, fixed, grid, study):
        """A grid key sweeping bundles (name -> settings): checks each bundle's settings like a
        case's; returns how many there are."""
        where = f" (grid key '{shown(key)}' of study '{shown(study)}')"
        if not v.value:
            self.fail(line, gm.text(key), f"expected a non-empty mapping of bundle name: settings{where}")
        if key in ("workload", "preset") or key in RESERVED_COLUMNS:
            self.fail(line, key, f"a grid key of bundles names a column: not '{shown(key)}'{where}")
        for b, bl, bv in v.pairs():
            if not isinstance(b, str) or not b:
                self.fail(bl, v.text(b), f"a bundle's name must be a string (quote it){where}")
            if bv.value is None:
                continue
            if not isinstance(bv.value, dict):
                self.fail(bv.line, b, f"expected the bundle's settings (a mapping){where}")
            w = f" (bundle '{shown(b)}' of grid key '{shown(key)}' of study '{shown(study)}')"
            for k, kl, sv in bv.pairs():
                self.setting(kl, k, sv.value, w, bv.text(k), (key, b))
                if k in fixed:
                    self.fail(kl, k, f"in a grid bundle and in fixed (line {fixed[k]}): the bundle's value would "
                              f"override it{w}")
                if k in grid:
                    self.fail(kl, k, f"in a grid bundle and a key of the grid (line {grid[k]}){w}")
                other = self.bundled.get(k)
                if other and other[2] != key:
                    self.fail(kl, k, f"set by bundles of two grid keys (line {other[0]}){w}")
                self.bundled[k] = (kl, b, key)
                self.bundle_lines.setdefault((key, b), {})[k] = kl
        return len(v.value)

    def study(self, m, names):
        s = m.value
        if not isinstance(s, dict):
            self.fail(m.line, "studies", f"expected a study (a mapping), got {self.kind(s)}")
        self.deferred = []
        self.bundled = {}  # a setting of a grid bundle -> (line, bundle name, grid key)
        self.bundle_lines = {}  # (grid key, bundle name) -> {setting: line}
        self.keys(m, STUDY_KEYS, "study")
        at = {k: (line, v) for k, line, v in m.pairs()}
        if "name" not in at:
            self.fail(m.line, "name", "missing 'name' (a study's name, unique in the file)")
        line, name = at["name"][0], s["name"]
        self.string(line, "name", name, "")
        if "/" in name or name.startswith(".") or not name.isprintable():
            self.fail(line, "name", f"a study's name names its plot files: no '/', no leading '.', no control "
                      f"characters, got '{shown(name)}'")
        if name in names:
            self.fail(line, "name", f"study name '{shown(name)}' used twice (first at line {names[name]})")
        names[name] = line
        where = f" (study '{shown(name)}')"
        if "table" in at and not isinstance(s["table"], bool):
            self.fail(at["table"][0], "table", f"expected true or false{where}, got {self.kind(s['table'])}")
        if s.get("table") is False and "summary" not in at:
            self.fail(at["table"][0], "table", f"a study without its table needs a summary{where}")
        for k in ("title", "text"):
            if k in at:
                if k == "text":
                    self.string(at[k][0], k, s[k], where, nonempty=False)
                else:
                    self.scalar(at[k][0], k, s[k], where)

        # fixed, grid, cases: their settings, and what each sweeps.
        fixed, grid, cases = {}, {}, {}
        if "fixed" in at:
            fm = at["fixed"][1]
            if not isinstance(fm.value, dict):
                self.fail(fm.line, "fixed", f"expected a mapping of parameter: value{where}")
            for k, kl, v in fm.pairs():
                self.setting(kl, k, v.value, f" (fixed of study '{shown(name)}')", fm.text(k), "study")
                fixed[k] = kl
        n_points = 1
        if "grid" in at:
            gm = at["grid"][1]
            if not isinstance(gm.value, dict):
                self.fail(gm.line, "grid", f"expected a mapping of parameter: [values]{where}")
            for k, kl, v in gm.pairs():
                w = f" (grid of study '{shown(name)}')"
                if isinstance(v.value, dict):
                    n_points *= self.bundles(k, kl, v, gm, fixed, grid, name)
                    grid[k] = kl
                    continue
                if not isinstance(v.value, list) or not v.value:
                    self.fail(kl, gm.text(k),
                              f"expected a non-empty list of values or a mapping of bundles{w}, got "
                              f"{self.kind(v.value)}")
                for item in v.items():
                    self.setting(item.line, k, item.value, w, gm.text(k), "study")
                if k in fixed:
                    self.fail(kl, k, f"in the grid and in fixed (line {fixed[k]}): the grid's values would "
                              f"override it{where}")
                if k in self.bundled:
                    self.fail(kl, k, f"a key of the grid and set by its bundle '{shown(self.bundled[k][1])}' (line "
                              f"{self.bundled[k][0]}){where}")
                grid[k] = kl
                n_points *= len(v.value)
        if "cases" in at:
            cm = at["cases"][1]
            if not isinstance(cm.value, dict) or not cm.value:
                self.fail(cm.line, "cases", f"expected a mapping of case name: settings{where}")
            for c, cl, cv in cm.pairs():
                if not isinstance(c, str) or not c:
                    self.fail(cl, cm.text(c), f"a case's name must be a string (quote it){where}")
                if cv.value is None:
                    cases[c] = {}
                    continue
                if not isinstance(cv.value, dict):
                    self.fail(cv.line, c, f"expected the case's settings (a mapping){where}")
                cases[c] = {}
                for k, kl, v in cv.pairs():
                    self.setting(kl, k, v.value, f" (case '{shown(c)}' of study '{shown(name)}')", cv.text(k), c)
                    if k in grid:
                        self.fail(kl, k, f"set by case '{shown(c)}' and swept in the grid (line {grid[k]}): the "
                                  f"grid's values would override it{where}")
                    if k in self.bundled:
                        self.fail(kl, k, f"set by case '{shown(c)}' and by grid bundle '{shown(self.bundled[k][1])}' "
                                  f"(line {self.bundled[k][0]}): the bundle's value would override it{where}")
                    cases[c][k] = kl
            n_points *= len(cases)
        # workload and preset: in the study, in fixed, in the grid, or set by every case or
        # every bundle of a grid key.
        for k in ("workload", "preset"):
            by_cases = bool(cases) and all(k in c for c in cases.values())
            by_bundles = any(isinstance(v, dict) and all(isinstance(b, dict) and k in b for b in v.values())
                             for v in (s.get("grid") or {}).values())
            if k in self.bundled and (k in at or k in fixed or any(k in c for c in cases.values())):
                self.fail(self.bundled[k][0], k, f"set by grid bundle '{shown(self.bundled[k][1])}' and in the "
                          f"study, fixed or a case: one of them would be ignored{where}")
            if k in at:
                (self.workload if k == "workload" else self.preset)(at[k][0], s[k], where)
                for other, line_ in (("fixed", fixed.get(k)), ("grid", grid.get(k))):
                    if line_:
                        self.fail(line_, k, f"given in the study (line {at[k][0]}) and in {other}: one of them "
                                  f"would be ignored{where}")
            elif k not in fixed and k not in grid and not by_cases and not by_bundles:
                self.fail(m.line, k, f"missing '{k}'{where}: give it in the study, in fixed, in the grid or in "
                          "every case")
        self.placeholders(s, fixed, grid, cases, where)

        if "seeds" in at:
            sl, sm = at["seeds"]
            if not isinstance(sm.value, list) or not sm.value:
                self.fail(sl, "seeds", f"expected a non-empty list of seeds{where}, got {self.kind(sm.value)}")
            for item in sm.items():
                self.seed(item.line, item.value, where)
            n_points *= len(sm.value)

        # Columns: metrics (and relative, samples) next to the study's own.
        own = ["study", "seed"] + (["case"] if cases else []) + [k for k in grid]
        own_params = (["case"] if cases else []) + [k for k in grid] + ["seed"]
        if "metrics" not in at:
            self.fail(m.line, "metrics", f"missing 'metrics'{where}")
        mm = at["metrics"][1]
        if not isinstance(mm.value, dict):
            self.fail(mm.line, "metrics", f"expected a mapping of column: metric{where}")
        metrics = []
        for col, cl, expr in mm.pairs():
            if not isinstance(col, str) or not col:
                self.fail(cl, mm.text(col), f"a metric's column name must be a string{where}")
            if col in own or col in RESERVED_COLUMNS:
                self.fail(cl, col, f"the column '{shown(col)}' is the study's own (study, case, seed, sample, the "
                          f"grid's keys){where}")
            self.metric(cl, col, expr.value, where)
            metrics.append(col)
        summary_cols, sample_cols = list(metrics), []
        if "samples" in at:
            sm = at["samples"][1]
            self.keys(sm, SAMPLES_KEYS, "samples")
            sa = {k: (line, v) for k, line, v in sm.pairs()}
            for k in ("x", "y"):
                if k not in sa:
                    self.fail(sm.line, k, f"samples needs '{k}'{where}")
            self.string(sa["x"][0], "x", sa["x"][1].value, where)
            if "per" in sa:
                per = sa["per"][1].value
                if not _positive_real(per):
                    self.fail(sa["per"][0], "per", f"expected a positive number{where}, got {self.kind(per)}")
            if "percent_of" in sa:
                self.string(sa["percent_of"][0], "percent_of", sa["percent_of"][1].value, where)
            ym = sa["y"][1]
            if not isinstance(ym.value, dict) or not ym.value:
                self.fail(sa["y"][0], "y", f"expected a mapping of column: time-series stat{where}")
            for col, cl, stat in ym.pairs():
                if not isinstance(col, str) or not col:
                    self.fail(cl, ym.text(col), f"a sampled column's name must be a string{where}")
                if col in own or col in metrics or col in RESERVED_COLUMNS:
                    self.fail(cl, col, f"the column '{shown(col)}' is taken{where}")
                self.string(cl, col, stat.value, where)
                sample_cols.append(col)
                summary_cols += [col + "_mean", col + "_max"]
            sample_cols += ["sample", sa["x"][1].value]
        columns = own + summary_cols + sample_cols

        if "relative" in at:
            rm = at["relative"][1]
            self.keys(rm, RELATIVE_KEYS, "relative")
            ra = {k: (line, v) for k, line, v in rm.pairs()}
            for k in RELATIVE_NEEDS:
                if k not in ra:
                    self.fail(rm.line, k, f"relative needs '{k}'{where}")
            if not cases:
                self.fail(rm.line, "relative", f"relative compares cases: the study has none{where}")
            of = ra["of"][1].value
            if of not in summary_cols:
                self.fail(ra["of"][0], "of", f"'{shown(of)}' is not a metric of the study{_close(of, summary_cols)}"
                          f"{where}")
            self.case_list(ra["to"], cases, where)
            rname = ra["name"][1].value
            self.string(ra["name"][0], "name", rname, where)
            if rname in columns:
                self.fail(ra["name"][0], "name", f"the column '{shown(rname)}' is taken{where}")
            if "invert" in ra and not isinstance(ra["invert"][1].value, bool):
                self.fail(ra["invert"][0], "invert", f"expected true or false{where}, got "
                          f"{self.kind(ra['invert'][1].value)}")
            if "by" in ra:
                self.names(ra["by"], "by", list(grid) + ["seed"], "a grid key or seed", where, empty=True)
            columns.append(rname)
            summary_cols.append(rname)

        if "summary" in at:
            um = at["summary"][1]
            self.keys(um, SUMMARY_KEYS, "summary")
            ua = {k: (line, v) for k, line, v in um.pairs()}
            for k in ("of", "stats"):
                if k not in ua:
                    self.fail(um.line, k, f"summary needs '{k}'{where}")
            by = self.names(ua["by"], "by", own_params, "a parameter column (case, a grid key, seed)", where,
                            empty=True) if "by" in ua else []
            ofs = self.names(ua["of"], "of", summary_cols, "a metric or relative column", where)
            stats = self.names(ua["stats"], "stats", X.SUMMARY_STATS, "a statistic", where)
            summary = {"by": by, "of": ofs, "stats": stats}
            stat_cols = [f"{o}_{st}" for o in ofs for st in stats if st != "argmax"]
            if "relative" in ua:
                sm = ua["relative"][1]
                self.keys(sm, SUMMARY_RELATIVE_KEYS, "relative")
                sa_ = {k: (line, v) for k, line, v in sm.pairs()}
                for k in ("of", "to", "name"):
                    if k not in sa_:
                        self.fail(sm.line, k, f"the summary's relative needs '{k}'{where}")
                if "case" not in by:
                    self.fail(ua["relative"][0], "relative", f"the summary's relative compares cases: its `by` "
                              f"needs case{where}")
                sof = sa_["of"][1].value
                if sof not in stat_cols:
                    self.fail(sa_["of"][0], "of", f"'{shown(sof)}' is not a column of the summary (columns: "
                              f"{', '.join(map(shown, stat_cols))}; not argmax's){where}")
                sto = self.case_list(sa_["to"], cases, where)
                sname = sa_["name"][1].value
                self.string(sa_["name"][0], "name", sname, where)
                if sname in columns or sname in stat_cols or sname in by:
                    self.fail(sa_["name"][0], "name", f"the column '{shown(sname)}' is taken{where}")
                if "invert" in sa_ and not isinstance(sa_["invert"][1].value, bool):
                    self.fail(sa_["invert"][0], "invert", f"expected true or false{where}, got "
                              f"{self.kind(sa_['invert'][1].value)}")
                summary["relative"] = {"of": sof, "to": list(sto.value), "name": sname,
                                       "invert": bool(sa_["invert"][1].value) if "invert" in sa_ else False}
            label = X.summary_label({"summary": summary, "cases": cases, "grid": grid})
            if "argmax" in stats and label is None:
                self.fail(ua["stats"][0], "stats", f"argmax names a row by the first of case, the grid's keys and "
                          f"seed that is not a `by` column, and every one is{where}")
            summary_columns = list(by)
            for col in X.summary_columns({"summary": summary}):
                if col in columns:
                    self.fail(ua["of"][0], "of", f"the summary's column '{shown(col)}' is taken{where}")
                summary_columns.append(col)

        if "area" in at:
            am = at["area"][1]
            self.keys(am, AREA_KEYS, "area")
            columns.append("area_mm2")  # the page's column, which a plot may draw
            aa = {k: (line, v) for k, line, v in am.pairs()}
            if "of" not in aa or aa["of"][1].value != "hwwl":
                self.fail(aa["of"][0] if "of" in aa else am.line, "of", f"area: only 'of: hwwl' is known{where}")
            if "part" in aa and aa["part"][1].value not in AREA_PARTS:
                self.fail(aa["part"][0], "part", f"expected one of {', '.join(AREA_PARTS)}{where}")
            if "lanes" not in aa:
                self.fail(am.line, "lanes", f"area needs 'lanes' (the lanes per core){where}")
            lanes = aa["lanes"][1].value
            if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes <= 0:
                self.fail(aa["lanes"][0], "lanes", f"expected a positive integer (the lanes per core){where}")
            if "defaults" in aa:
                dm = aa["defaults"][1]
                if not isinstance(dm.value, dict):
                    self.fail(dm.line, "defaults", f"expected a mapping of parameter: value{where}")
                for k, kl, v in dm.pairs():
                    self.setting(kl, k, v.value, f" (area defaults of study '{shown(name)}')", dm.text(k))

        if "plot" in at:
            pm = at["plot"][1]
            self.keys(pm, PLOT_KEYS, "plot")
            pa = {k: (line, v) for k, line, v in pm.pairs()}
            for k in ("x", "y"):
                if k not in pa:
                    self.fail(pm.line, k, f"plot needs x and y{where}")
            cols, of_what = columns, "the study"
            if "from" in pa:
                src = pa["from"][1].value
                if src not in PLOT_FROM:
                    self.fail(pa["from"][0], "from", f"expected {' or '.join(PLOT_FROM)} (the study's summary rows; "
                              f"without 'from', its rows){where}, got {self.kind(src)}")
                if "summary" not in at:
                    self.fail(pa["from"][0], "from", f"the study has no summary{where}")
                cols, of_what = summary_columns, "the study's summary"
            for k in ("x", "y", "series"):
                if k in pa and not (k == "series" and pa[k][1].value is None):
                    col = pa[k][1].value
                    if col not in cols:
                        self.fail(pa[k][0], k, f"'{shown(col)}' is not a column of {of_what}"
                                  f"{_close(col, cols)} (columns: {', '.join(map(shown, cols))}){where}")
            if "from" in pa and isinstance(pa["y"][1].value, str) and pa["y"][1].value.endswith("_argmax"):
                self.fail(pa["y"][0], "y", f"'{shown(pa['y'][1].value)}' names rows, it is not a value{where}")
            for k in ("logx", "logy", "pareto"):
                if k in pa and not isinstance(pa[k][1].value, bool):
                    self.fail(pa[k][0], k, f"expected true or false{where}")
            if "pareto" in pa and pa["pareto"][1].value is True and (pa.get("x") or (0, None))[1] is not None \
                    and pa["x"][1].value != "area_mm2":
                self.fail(pa["pareto"][0], "pareto", f"a Pareto plot has x: area_mm2 (the study's area column){where}")
            for k in ("marker", "xlabel", "ylabel"):
                if k in pa:
                    self.string(pa[k][0], k, pa[k][1].value, where, nonempty=False)
            if "cases" in pa:
                if not cases:
                    self.fail(pa["cases"][0], "cases", f"the plot draws cases: the study has none{where}")
                self.names(pa["cases"], "cases", list(cases), "a case of the study", where)
                if "from" in pa and "case" not in cols:
                    self.fail(pa["cases"][0], "cases", f"the summary's rows have no case (its by has none){where}")
            if "mark_x" in pa:
                mv = pa["mark_x"][1].value
                if not (isinstance(mv, dict) and set(mv) <= {"at", "label"} and isinstance(mv.get("at"), (int, float))
                        and not isinstance(mv.get("at"), bool) and isinstance(mv.get("label", ""), str)):
                    self.fail(pa["mark_x"][0], "mark_x", f"expected {{at: <a number>, label: <text>}}{where}")

        if "paper" in at:
            pm = at["paper"][1]
            self.keys(pm, PAPER_KEYS, "paper")
            pa = {k: (line, v) for k, line, v in pm.pairs()}
            if "source" in pa:
                self.scalar(pa["source"][0], "source", pa["source"][1].value, where)
            if "values" in pa:
                vm = pa["values"][1]
                if not isinstance(vm.value, list) or not all(isinstance(x, dict) and x for x in vm.value):
                    self.fail(pa["values"][0], "values", f"expected a list of mappings (column: value){where}")
        return n_points

    def run(self):
        doc = load_marked(self.path)
        self.keys(doc, TOP_KEYS, "top-level")
        at = {k: (line, v) for k, line, v in doc.pairs()}
        for k in ("title", "page", "intro"):
            if k in at:
                if k == "title":
                    self.scalar(at[k][0], k, at[k][1].value, "")
                else:
                    self.string(at[k][0], k, at[k][1].value, "", nonempty=(k == "page"))
        sl, sm = at["studies"]
        if not isinstance(sm.value, list) or not sm.value:
            self.fail(sl, "studies", "an experiment needs a 'studies' list (of at least one study)")
        names, runs = {}, 0
        for item in sm.items():
            n = self.study(item, names)
            runs += n
            if runs > MAX_POINTS:
                self.fail(item.line, "studies", f"{runs:,} runs so far; an experiment file may have at most "
                          f"{MAX_POINTS:,}")
        exp = doc.value
        distinct = {tuple(args) for s in exp["studies"] for _, _, args in X.points(s)}
        return Result(exp, len(exp["studies"]), len(distinct), runs)


def check(path, cat=None):
    """Checks the experiment file at `path` (against the Catalog `cat` of an fgsim when given):
    a Result (the experiment, its studies and points), or a Problem."""
    return _Checker(path, cat).run()


def fail(problem):
    """Ends the process with the problem's one line and exit 2, from anywhere (the Snakefile:
    Snakemake would turn a SystemExit into a traceback on standard output and exit 1)."""
    sys.stdout.flush()
    sys.stderr.write(str(problem) + "\n")
    sys.stderr.flush()
    os._exit(EXIT_BAD_INPUT)


USAGE = "usage: check.py [--fgsim PATH] FILE...   (tools/experiment.sh --check FILE...)"


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    fgsim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "fgsim")
    files = []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__.split("\n\n")[0] + "\n\n" + USAGE)
            return 0
        if a == "--fgsim" or a.startswith("--fgsim="):
            if a == "--fgsim" and not args:
                print(f"check.py: error: --fgsim needs a path ({USAGE})", file=sys.stderr)
                return EXIT_BAD_INPUT
            fgsim = a.split("=", 1)[1] if "=" in a else args.pop(0)
        elif a == "--":
            files += args
            args = []
        elif a.startswith("-") and a != "-":
            print(f"check.py: error: unknown option '{shown(a)}' ({USAGE})", file=sys.stderr)
            return EXIT_BAD_INPUT
        else:
            files.append(a)
    if not files:
        print(f"check.py: error: no experiment file ({USAGE})", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        cat = catalog(fgsim)
        results = [(f, check(f, cat)) for f in files]
    except Problem as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    for f, r in results:
        print(r.summary(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
