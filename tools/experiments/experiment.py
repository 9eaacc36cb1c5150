# SPDX-License-Identifier: Apache-2.0
"""Experiments: a declarative file (experiments/NAME.yaml) expanded into fgsim
runs, a tidy CSV, plots and a Markdown validation page. Used by the Snakefile
beside this file; also importable on its own (tests, notebooks).

An experiment file:

    title: Platform scaling and contention
    page: docs/validation/platform.md       # where the Markdown page goes
    intro: |
      Free text at the top of the page.
    studies:
      - name: vecadd-cus                     # unique within the file
        title: vecadd over CUs
        workload: vecadd
        preset: orr2014
        fixed: {vecadd.n: 65536}             # --set for every point
        grid: {gpu.cus: [1, 2, 4, 8]}        # cartesian product of these
        seeds: [1]                           # --seed values (default [1])
        metrics:                             # column -> path in the stats JSON
          time_us: sim.time_ns / 1000        #   (a path, optionally "/ number" or "* number")
          dram_gbps: stats.gpu.dram.bandwidth
        plot: {x: gpu.cus, y: time_us, series: null, logx: false, logy: false}
                                       # cases: [a, b]: only these cases' rows (and paper values)
                                       # mark_x: {at: 32768, label: "..."}: a vertical line
                                       # pareto: true (x area_mm2): labelled points, the front
        paper: {source: "...", values: [{gpu.cus: 1, time_us: 12.0}]}   # optional
        text: |
          What the study shows (free text under its table).

A study may also list named cases, each a set of --set values, crossed with
the grid (column `case`), and derive a speed-up column against the best of
some cases at the same grid point and seed:

        cases:
          topo: {bfs.variant: topo}
          hwwl: {bfs.variant: hwwl, worklist.scheme: lsorting}
        relative: {of: kernel_us, to: [topo], name: speedup}   # min(of over `to`) / of
        text: |
          What the study shows (free text under its table).

`relative` may add `invert: true` (the column is then this row's `of` over the
best `of` of the `to` cases: a slowdown, above 1 when this row is slower) and
`by: [COLUMN, ...]` (grid keys and/or seed: the rows matched against the `to`
cases are those with the same values of these; default all grid keys and the
seed; [] matches every row with the best over the whole study):

        relative: {of: period_ms, to: [plain], name: slowdown, invert: true, by: [workload]}

A grid key may sweep bundles of settings instead of one parameter's values:
its value is then a mapping of bundle name -> settings (the column gets the
name), e.g. a workload with its input:

        grid:
          pair:
            bfs-grid: {workload: bfs, bfs.generator: grid, bfs.scale: 15}
            color-uniform: {workload: color, color.generator: uniform, color.scale: 15}

A setting's name in `fixed`, `grid` or `cases` may contain `{workload}`,
replaced in each run by that run's workload (from the study, fixed, the grid or
the case), so that one case sets a per-workload parameter for every workload:

        grid: {workload: [color, mis, octree]}
        cases:
          plain: {"{workload}.mechanism": persistent, "{workload}.groups": -1}
          coop: {"{workload}.mechanism": coop, coop.reserve_slot: true}

runs `--set color.mechanism=persistent --set color.groups=-1` for color. A grid
key keeps the placeholder as its CSV column (`{workload}.groups`: one column
whatever the workload); the page shows settings as written.

`table: false` leaves a study's table out of the page (its rows stay in the
CSV): for a study that shows only its summary, such as a second plot of runs
another study has (points are cached by their arguments, so they run once).

A study may summarize its rows in a small table under its own (`summary`):
one row per group of rows with equal `by` values (case, grid keys, seed; [] or
absent: one group of all rows), with a column <of>_<stat> for each `of` column
(a metric, a sampled <col>_mean/_max, or the relative column) and statistic
(mean, geomean, median, min, max, argmax). A row without a value is left out;
a group without any gives an empty cell. argmax is not a number: it is the
value, in the row with the largest `of` (the first such row), of the first of
case, the grid's keys and seed that is not a `by` column (e.g. `workload`: "max
1.5 (mis)"). The summary rows are in the CSV after the study's other rows, with
`summary` = 1. Paper values that have a summary column (and the `by` columns)
are printed beside ours as paper_<col>. A plot may draw the summary rows
instead of the study's (`from: summary`; x, y and series are then summary
columns):

        summary: {by: [case], of: [slowdown, period_ms], stats: [geomean, max, median]}
        plot: {from: summary, x: case, y: slowdown_median}
        paper: {source: "...", values: [{case: coop, slowdown_median: 1.47}]}

The plot draws the paper's values that have its x and y; when they also have
its series column, each series' paper points in that series' colour (beside its
bars over categorical x).

A study of the hardware worklist may add the synthesized area of the
configuration each case runs (column `area_mm2`, from synth/results.json;
docs/synthesis.md), next to its speed-up:

        area: {of: hwwl, part: unit, lanes: 16, defaults: {gpu.cus: 4}}

`part: unit` is the whole unit (banks, WRUs, network); `part: redistribution`
the WRUs and the network only (for infinite banks, which have no area).
Software cases have none (0); cases the synthesis sweep does not cover say so.

A study may sample a time series per run instead (Series stats such as
gpu.worklist.active_threads, enabled by a parameter of the run): each run then
gives one summary row (its metrics, and the mean and maximum of every sampled
column as <col>_mean and <col>_max) plus one row per sample (column `sample`:
the sample's index), which the plot draws over time and the page's table
leaves out:

        samples:
          x: kcycles                         # the sample's time: index * interval / per
          per: 1000
          y: {active_pct: gpu.worklist.active_threads}   # column -> Series stat
          percent_of: gpu.worklist.hw_threads            # optional: y as % of this stat
        plot: {x: kcycles, y: active_pct, series: case, marker: ""}

A point is identified by the hash of its fgsim arguments and of the fgsim
binary, so re-running regenerates only points whose configuration or binary
changed."""
import csv
import hashlib
import itertools
import json
import math
import os
import re
import statistics
import subprocess


def load(path, fgsim=None):
    """The experiment file at `path`, checked (check.py: its keys, metrics and columns; with
    the path of an fgsim, also its parameters, values, workloads and presets). A problem
    is a SystemExit (check.Problem) whose message is one line: `FILE:LINE: KEY: message`."""
    import check  # beside this file; it imports this module
    return check.check(path, check.catalog(fgsim) if fgsim else None).experiment


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def binary_hash(path):
    """The fgsim binary's hash with its build's commit id (`fgsim --version`, compiled in by
    tools/cmake/git_version.cmake) blanked: every commit relinks fgsim with a new id, and a
    binary that differs from a cached one in nothing else gives the same results. Any other
    difference, a longer or shorter id included, changes the hash."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    m = re.search(r"\(([^()]+)\)\s*$", out)
    if not m:
        return file_hash(path)
    stamp = m.group(1).encode()
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha256(data.replace(stamp, b"\0" * len(stamp))).hexdigest()


def fmt_value(v):
    return str(v).lower() if isinstance(v, bool) else str(v)


WORKLOAD = "{workload}"  # in a setting's name: replaced by the run's workload


def substitute(name, workload):
    """A setting's name with {workload} replaced by the run's workload."""
    return name.replace(WORKLOAD, str(workload)) if isinstance(name, str) else name


def grid_settings(study, grid_values):
    """The settings of a point's grid values ({key: value}): a key with a list of values is
    the parameter itself; a key with a mapping (a bundle: name -> settings) gives the
    settings of the named bundle."""
    grid, out = study.get("grid") or {}, {}
    for k, v in grid_values.items():
        if isinstance(grid.get(k), dict):
            out.update(grid[k][v] or {})
        else:
            out[k] = v
    return out


def settings(study, case_sets, grid_values):
    """One point's (workload, preset, {parameter: value}): fixed, then the case's settings, then
    the grid's values (each overriding the one before; a bundle's name gives its settings),
    `workload` and `preset` taken out, {workload} in a name replaced by the point's workload."""
    parts = (study.get("fixed") or {}, case_sets or {}, grid_settings(study, grid_values))
    merged = {k: v for part in parts for k, v in part.items()}
    # `workload` and `preset` may be swept like parameters.
    workload = merged.get("workload", study.get("workload"))
    preset = merged.get("preset", study.get("preset"))
    out = {}
    for part in parts:
        for k, v in part.items():
            if k not in ("workload", "preset"):
                out[substitute(k, workload)] = v
    return workload, preset, out


def points(study):
    """Every run of a study: (parameters dict, seed, fgsim argument list). The parameters are
    the case and the grid's values under the grid's keys as written ({workload} kept)."""
    grid = study.get("grid") or {}
    keys = list(grid)
    cases = study.get("cases") or {None: {}}
    # A bundle (a mapping) sweeps its names.
    values = [list(grid[k]) for k in keys]
    for (case, case_sets), combo in itertools.product(cases.items(),
                                                      itertools.product(*values) if keys else [()]):
        params = ({"case": case} if case is not None else {}) | dict(zip(keys, combo))
        workload, preset, sets = settings(study, case_sets, dict(zip(keys, combo)))
        for seed in study.get("seeds", [1]):
            args = ["run", str(workload), "--preset", str(preset), "--seed", str(seed)]
            for k, v in sets.items():
                args += ["--set", f"{k}={fmt_value(v)}"]
            yield params, seed, args


def point_id(args, binary_hash):
    """A run's cache key: the binary and its arguments, the --set settings in the order of their
    names (a stable sort: a name given twice keeps its order, the last one winning), so that
    the same configuration reached through fixed, a case or a grid bundle in another order,
    by another study, is one run."""
    i = next((k for k, a in enumerate(args) if a == "--set"), len(args))
    head, sets = args[:i], [args[k + 1] for k in range(i, len(args) - 1, 2)]
    sets = sorted(sets, key=lambda kv: kv.partition("=")[0])
    canon = head + [x for kv in sets for x in ("--set", kv)]
    return hashlib.sha256((binary_hash + "\0" + "\0".join(canon)).encode()).hexdigest()[:16]


_EXPR = re.compile(r"^\s*([A-Za-z0-9_.*\[\]-]+)\s*(?:([*/])\s*([A-Za-z0-9_.*\[\]+-]+))?\s*$")
_NUMBER = re.compile(r"^[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?$")


def metric(result, expr):
    """Evaluates 'a.b.c', 'a.b.c / 1000', 'a.b.c * 2' or 'a.b.c / x.y.z' (a
    ratio of two paths) on a stats JSON ({"sim": ..., "stats": {"gpu.x": ...},
    "result": ...}). Stat names contain dots, so 'stats.<name>' takes the rest
    as one key; a '*' in it sums every counter matching (e.g.
    stats.gpu.l2.bank*.ownership_transfers), or pools every average matching
    (their mean weighted by their counts: stats.gpu.cu*.reqs_per_load)."""
    m = _EXPR.match(expr)
    if not m:
        raise ValueError(f"metric '{expr}': expected PATH, PATH / NUMBER, PATH * NUMBER or PATH / PATH")
    path, op, rhs = m.groups()
    v = _path_value(result, path, expr)
    if op is None or v is None:
        return v
    other = float(rhs) if _NUMBER.match(rhs) else _path_value(result, rhs, expr)
    if other is None:
        return None
    if op == "/":
        return v / other if other else 0.0  # a ratio of nothing (e.g. misses / reads with no reads) is 0
    return v * other


def _path_value(result, path, expr):
    head, _, rest = path.partition(".")
    if head == "stats" and "*" in rest:
        pat = re.compile("^" + re.escape(rest).replace("\\*", "[^.]*") + "$")
        found = [x for k, x in result["stats"].items() if pat.match(k)]
        nums = [x for x in found if isinstance(x, (int, float))]
        avgs = [x for x in found if isinstance(x, dict) and "mean" in x and "count" in x]
        if nums:
            return sum(nums)
        if avgs:
            n = sum(a["count"] for a in avgs)
            return sum(a["mean"] * a["count"] for a in avgs) / n if n else 0.0
        # No matching stat in this run (a task metric of a mechanism the run did not build):
        # no value, as for a missing stat below. rows() refuses a metric no run has.
        return None
    if head == "stats" and rest and rest not in result["stats"]:
        # A mechanism's statistic in a run that did not build the mechanism
        # (a topo case's worklist waits): no value. rows() refuses a metric
        # that no run of the study has (a misspelt name).
        return None
    if head == "result" and rest and rest not in result["workload"]["results"]:
        # A result one version of a workload reports (a cooperative run's
        # active_mean): no value in the others, as for stats above.
        return None
    if head in ("stats", "config") and rest:
        v = result[head][rest]
    elif head == "result" and rest:  # the workload's results
        v = result["workload"]["results"][rest]
    else:
        v = result
        for part in path.split("."):
            v = v[int(part)] if isinstance(v, list) else v[part]
    if isinstance(v, dict) and "mean" in v:
        v = v["mean"]
    return v


def sampled(study, r):
    """A sampled study's series of one run (stats JSON r): (x values,
    {column: values})."""
    spec = study["samples"]
    cols, interval = {}, None
    for col, stat in spec["y"].items():
        v = r["stats"].get(stat)
        if not isinstance(v, dict) or "samples" not in v:
            raise SystemExit(f"study {study['name']}: samples: '{stat}' is not a time series in the stats "
                             "(is its sampling enabled?)")
        interval = v["interval"]
        vals = [float(x) for x in v["samples"]]
        if spec.get("percent_of"):
            base = float(r["stats"][spec["percent_of"]])
            vals = [100.0 * x / base for x in vals]
        cols[col] = vals
    n = min(len(v) for v in cols.values())
    per = float(spec.get("per", 1))
    return [k * interval / per for k in range(n)], {c: v[:n] for c, v in cols.items()}


def rows(study, results):
    """results: list of (params, seed, stats JSON) -> tidy rows."""
    out, series_rows = [], []
    for params, seed, r in results:
        row = {"study": study["name"], **params, "seed": seed}
        for col, expr in study["metrics"].items():
            row[col] = metric(r, expr)
        if study.get("samples"):
            xs, cols = sampled(study, r)
            for c, v in cols.items():
                row[c + "_mean"] = sum(v) / len(v) if v else 0.0
                row[c + "_max"] = max(v) if v else 0.0
            for k, x in enumerate(xs):
                series_rows.append({"study": study["name"], **params, "seed": seed, "sample": k,
                                    study["samples"]["x"]: x, **{c: v[k] for c, v in cols.items()}})
        out.append(row)
    for col, expr in study["metrics"].items():
        if out and all(r[col] is None for r in out):
            raise KeyError(f"study {study['name']}: metric {col} ('{expr}'): no run of the study has that statistic")
    rel = study.get("relative")
    if rel:
        # Per point (the `by` columns; all grid keys and the seed by default): the best
        # (smallest) `of` among the `to` cases over this row's `of`, or, inverted, this
        # row's `of` over that best.
        by = relative_by(study)

        def key(r):
            return tuple((k, r.get(k)) for k in by)
        best = {}
        for r in out:
            if r.get("case") in rel["to"]:
                best[key(r)] = min(best.get(key(r), float("inf")), r[rel["of"]])
        for r in out:
            if key(r) not in best:
                raise SystemExit(f"study {study['name']}: relative: no '{rel['to']}' case at {key(r)}")
            r[rel["name"]] = r[rel["of"]] / best[key(r)] if rel.get("invert") else best[key(r)] / r[rel["of"]]
    return out + series_rows + (summary_rows(study, out) if study.get("summary") else [])


def relative_by(study):
    """The columns whose equal values make the same point for `relative`."""
    rel = study["relative"]
    return list(rel["by"]) if rel.get("by") is not None else list((study.get("grid") or {}).keys()) + ["seed"]


SUMMARY_STATS = ("mean", "geomean", "median", "q1", "q3", "min", "max", "argmax")


def summary_label(study):
    """The column that a summary's argmax names: the first of case, the grid's keys and seed
    that is not a `by` column (None when all are)."""
    by = (study.get("summary") or {}).get("by") or []
    own = (["case"] if study.get("cases") else []) + list((study.get("grid") or {}).keys()) + ["seed"]
    return next((c for c in own if c not in by), None)


def summary_columns(study):
    spec = study["summary"]
    rel = [spec["relative"]["name"]] if spec.get("relative") else []
    return [f"{of}_{stat}" for of in spec["of"] for stat in spec["stats"]] + rel


def _stat(stat, vals):
    """vals: [(value, label)], not empty."""
    xs = [v for v, _ in vals]
    if stat == "mean":
        return sum(xs) / len(xs)
    if stat == "geomean":
        return math.exp(sum(math.log(v) for v in xs) / len(xs))
    if stat == "median":
        return statistics.median(xs)
    if stat in ("q1", "q3"):
        # Nearest rank (the ceil(p n)-th smallest), as GTaP's result files give their quartiles
        # (84591ae evaluation/3-epaq/*/epaq_*.sh).
        return sorted(xs)[math.ceil((0.25 if stat == "q1" else 0.75) * len(xs)) - 1]
    if stat == "min":
        return min(xs)
    if stat == "max":
        return max(xs)
    if stat == "argmax":
        return max(vals, key=lambda vl: vl[0])[1]  # the first row of the largest value
    raise ValueError(f"unknown statistic '{stat}'")


def summary_rows(study, rows_):
    """A study's summary: one row per group of its rows (equal `by` values, in the order the
    groups first appear; all rows when `by` is empty or absent) with <of>_<stat> for each
    `of` column and statistic, over the rows that have a value (a row without one is left
    out; a group without any gives no value). argmax is the `summary_label` of the first row
    with the largest value. Each row has `summary` = 1 and the study's name."""
    spec, label = study["summary"], summary_label(study)
    by = list(spec.get("by") or [])
    groups = {}
    for r in rows_:
        groups.setdefault(tuple(r.get(b) for b in by), []).append(r)
    out = []
    for key, rs in groups.items():
        row = {"study": study["name"], "summary": 1, **dict(zip(by, key))}
        for of in spec["of"]:
            vals = []
            for r in rs:
                v = r.get(of)
                if v is None or v == "":
                    continue
                try:
                    v = float(v)
                except (TypeError, ValueError):
                    raise SystemExit(f"study {study['name']}: summary: {of} is '{v}' in a row, not a number")
                if v <= 0 and "geomean" in spec["stats"]:
                    raise SystemExit(f"study {study['name']}: summary: geomean of {of} over {v:g} (needs values > 0)")
                vals.append((v, r.get(label) if label else None))
            for stat in spec["stats"]:
                row[f"{of}_{stat}"] = _stat(stat, vals) if vals else None
        out.append(row)
    rel = spec.get("relative")
    if rel:
        # Over the summary rows, as `relative` over a study's rows: per group of the other `by`
        # columns than case, the smallest `of` among the `to` cases' rows over this row's `of`
        # (inverted: this row's over it). A row or group without a value gets none.
        others = [b for b in by if b != "case"]

        def key(r):
            return tuple(r.get(b) for b in others)
        best = {}
        for r in out:
            if r.get("case") in rel["to"] and r.get(rel["of"]) is not None:
                best[key(r)] = min(best.get(key(r), float("inf")), r[rel["of"]])
        for r in out:
            v, b = r.get(rel["of"]), best.get(key(r))
            r[rel["name"]] = None if v is None or b is None else (v / b if rel.get("invert") else b / v)
    return out


def write_csv(path, rows_):
    cols = []
    for r in rows_:
        for k in r:
            if k not in cols:
                cols.append(k)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in rows_:
            w.writerow(r)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return s


def plot(study, rows_, png, svg):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "finegrain"  # stable element ids: identical SVGs run to run
    # The object API, not pyplot: Snakemake runs plot jobs in threads of one
    # process, and pyplot's current-figure state is shared between them (the
    # plots then depended on which jobs ran together).
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 3.6))
    draw(study, rows_, fig.subplots())
    fig.tight_layout()
    # Reproducible files: no timestamps or random ids in the outputs.
    fig.savefig(png, dpi=110, metadata={"Software": None})
    fig.savefig(svg, metadata={"Date": None, "Creator": None})


def draw(study, rows_, ax):
    """A study's plot on the Matplotlib axes `ax` (rows_: its rows from the CSV)."""
    spec = study.get("plot") or {}
    x, y, series = spec.get("x"), spec.get("y"), spec.get("series")
    if not x or not y:
        raise SystemExit(f"study {study['name']}: plot needs x and y")
    if spec.get("from") == "summary":
        rows_ = [r for r in rows_ if str(r.get("summary", "")) != ""]
    else:
        rows_ = [r for r in rows_ if str(r.get("summary", "")) == ""]
        if study.get("samples"):
            rows_ = [r for r in rows_ if str(r.get("sample", "")) != ""]
    if spec.get("cases"):
        # Only these cases' rows (e.g. the one a relative column divides by is 1 throughout).
        rows_ = [r for r in rows_ if r.get("case") in spec["cases"]]
    if "area_mm2" in (x, y) and study.get("area"):
        # The area is the page's column (synth/results.json at render time), not a CSV one.
        rows_ = [dict(r) for r in rows_]
        _area_column(study, rows_, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        rows_ = [r for r in rows_ if isinstance(r["area_mm2"], float)]  # not "model only" or "not synthesized"
    if spec.get("pareto"):
        _pareto(study, rows_, ax, spec, x, y, series)
        return
    groups = {}
    for r in rows_:
        groups.setdefault(r.get(series) if series else None, []).append(r)
    categorical = any(isinstance(number(r[x]), str) for r in rows_)
    colors, offsets = {}, {}  # per series: its colour, and its bars' offset from the category
    if categorical:
        # Named cases: grouped bars in the order the study lists them.
        cats = list(dict.fromkeys(r[x] for r in rows_))
        width = 0.8 / max(1, len(groups))
        for i, (key, rs) in enumerate(groups.items()):
            by = {r[x]: number(r[y]) for r in rs}
            offsets[key] = (i - (len(groups) - 1) / 2) * width
            bars = ax.bar([c + offsets[key] for c in range(len(cats))],
                          [by.get(c, 0) for c in cats], width, label=f"{series}={key}" if series else "FineGrain")
            if bars.patches:
                colors[key] = bars.patches[0].get_facecolor()
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats, rotation=30, ha="right", fontsize=8)
    for key, rs in ({} if categorical else groups).items():
        rs = sorted(rs, key=lambda r: number(r[x]))
        line, = ax.plot([number(r[x]) for r in rs], [number(r[y]) for r in rs], marker=spec.get("marker", "o") or None,
                        label=f"{series}={key}" if series else "FineGrain")
        colors[key] = line.get_color()
    # The paper's values, where they are of this plot's x and y (a table in
    # another shape is only printed): points over the bars of categorical x.
    paper = [p for p in (study.get("paper") or {}).get("values") or [] if x in p and y in p
             and not (spec.get("cases") and "case" in p and p["case"] not in spec["cases"])]
    if paper and series and any(series in p for p in paper):
        # Per series, where the paper's values name it: our series' colour, beside its bars,
        # labelled "paper (<series value>)" (the page names the source).
        source = study["paper"].get("source") or "paper"
        pgroups = {}
        for p in paper:
            pgroups.setdefault(fmt_value(p[series]) if series in p else None, []).append(p)
        for key, ps in pgroups.items():
            ours = next((k for k in groups if key is not None and same_value(k, key)), None)
            style = dict(marker="s", color=colors.get(ours, "black"), markeredgecolor="black",
                         label=f"paper ({key})" if key is not None else source)
            if categorical:
                pos = {c: i for i, c in enumerate(cats)}
                ps = [p for p in ps if fmt_value(p[x]) in pos]
                ax.plot([pos[fmt_value(p[x])] + offsets.get(ours, 0) for p in ps], [number(p[y]) for p in ps],
                        linestyle="none", **style)
            else:
                ps = sorted(ps, key=lambda p: number(p[x]))
                ax.plot([number(p[x]) for p in ps], [number(p[y]) for p in ps], linestyle="--", **style)
    elif paper and categorical:
        pos = {c: i for i, c in enumerate(cats)}
        ps = [p for p in paper if p[x] in pos]
        ax.plot([pos[p[x]] for p in ps], [number(p[y]) for p in ps], marker="s", linestyle="none", color="black",
                label=(study["paper"].get("source") or "paper"))
    elif paper:
        ps = sorted(paper, key=lambda p: number(p[x]))
        ax.plot([number(p[x]) for p in ps], [number(p[y]) for p in ps], marker="s", linestyle="--",
                label=(study["paper"].get("source") or "paper"))
    if spec.get("mark_x") is not None:
        # A value of x the paper chose (e.g. Table 3's channel width), as a labelled vertical line.
        mark = spec["mark_x"]
        ax.axvline(number(mark["at"]), color="black", linestyle=":", label=mark.get("label", "paper"))
    if spec.get("logx"):
        ax.set_xscale("log", base=2)
    if spec.get("logy"):
        ax.set_yscale("log")
    ax.set_xlabel(spec.get("xlabel", x))
    ax.set_ylabel(spec.get("ylabel", y))
    ax.set_title(study.get("title", study["name"]), fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)


def pareto_front(points):
    """The points (x, y) that no other point beats on both less-or-equal x and more y, by x."""
    front, best = [], None
    for px, py in sorted(points, key=lambda p: (p[0], -p[1])):
        if best is None or py > best:
            front.append((px, py))
            best = py
    return front


def _pareto(study, rows_, ax, spec, x, y, series):
    """Each case as a labelled point of (x, y), per series one colour, and per series its Pareto
    front: the points no other point beats on both axes (less x, more y), joined as a step line."""
    groups = {}
    for r in rows_:
        groups.setdefault(r.get(series) if series else None, []).append(r)
    for key, rs in groups.items():
        pts = [(number(r[x]), number(r[y]), r.get("case", "")) for r in rs]
        pts = [p for p in pts if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p[:2])]
        dots = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", linestyle="none",
                       label=f"{series}={key}" if series else "FineGrain")[0]
        for px, py, name in pts:
            ax.annotate(name, (px, py), textcoords="offset points", xytext=(4, 3), fontsize=7)
        front = pareto_front([(p[0], p[1]) for p in pts])
        ax.plot([p[0] for p in front], [p[1] for p in front], drawstyle="steps-post", linestyle="--",
                color=dots.get_color(), alpha=0.6, label=f"Pareto front ({key})" if series else "Pareto front")
    if spec.get("logx"):
        ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel(spec.get("xlabel", x))
    ax.set_ylabel(spec.get("ylabel", y))
    ax.set_title(study.get("title", study["name"]), fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)


def same_value(a, b):
    """Whether two cells are the same value: one read from the CSV (text), the other from the
    experiment file (a number, a boolean or text)."""
    def norm(v):
        v = fmt_value(v) if isinstance(v, bool) else v
        n = number(v)
        return n.lower() if isinstance(n, str) and n.lower() in ("true", "false") else n
    return norm(a) == norm(b)


def table(rows_, cols):
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows_:
        cells = []
        for c in cols:
            v = number(r.get(c, ""))
            if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
                cells.append(str(int(v)))
            else:
                cells.append(f"{v:.4g}" if isinstance(v, float) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


_SCHEMES = {"none": 0, "threshold": 1, "lsorting": 2, "gsorting": 3}  # rtl/hwwl/hwwl_pkg.sv
_MODEL_ONLY = ("magic", "ideal_fifo", "ideal_sorted")


def aggregator_area(root):
    """The estimated area in mm^2 of the channel paper's aggregator at the synthesis node
    (synth/estimates.json: a published figure for a core of its class, scaled by the ideal
    (node ratio)^2 rule)."""
    with open(os.path.join(root, "synth", "estimates.json")) as f:
        e = json.load(f)["aggregator"]
    c = e["class_figure"]
    return c["area_mm2"] * (e["target_node_nm"] / c["node_nm"]) ** 2


def _synth_block(synth, block, params):
    for r in synth["results"]:
        if r["block"] == block and all(r["params"].get(k) == v for k, v in params.items()):
            return r["area_um2"]
    return None


def hwwl_area(settings, spec, synth, aggregator=None):
    """The synthesized area in mm^2 of the hardware worklist a run configures
    (settings: its --set values), or a word saying why there is none; for a
    channels run the aggregator's estimated area (`aggregator`)."""
    # <w>.mechanism, or its old name <w>.variant
    variant = next((v for k, v in settings.items() if k.endswith((".mechanism", ".variant"))), None)
    if variant == "channels" and aggregator is not None:
        return aggregator
    if variant != "hwwl":
        return 0.0  # a software worklist or topology-driven kernel: no worklist hardware
    s = {**(spec.get("defaults") or {}), **settings}
    scheme = str(s.get("worklist.scheme", "lsorting"))
    if scheme in _MODEL_ONLY:
        return "model only"
    cores, lanes = int(s.get("gpu.cus", 4)), int(spec["lanes"])
    depth = int(s.get("worklist.depth", 32))
    thr, interval = int(s.get("worklist.threshold", 5)), int(s.get("worklist.interval", 10))
    wru = _synth_block(synth, "wru", {"Lanes": lanes, "Scheme": _SCHEMES[scheme], "Threshold": thr,
                                      "Interval": interval})
    icrn = _synth_block(synth, "icrn", {"NumCores": cores})
    # gsorting's monolithic ranking of every bank (hwwl_grank), outside the cores.
    grank = _synth_block(synth, "grank", {"NumBanks": cores * lanes}) if scheme == "gsorting" else 0.0
    if spec.get("part", "unit") == "redistribution":
        if scheme == "none":
            return 0.0  # no WRU decisions and no network traffic
        return "not synthesized" if wru is None or icrn is None or grank is None else \
            (cores * wru + icrn + grank) / 1e6
    # The whole unit: the synthesized system at 32 entries, with its banks
    # replaced by the synthesized banks of this depth (the rest is unchanged).
    params = {"Lanes": lanes, "Depth": 32, "Scheme": _SCHEMES[scheme], "Threshold": thr, "Interval": interval}
    system = _synth_block(synth, "system", {"NumCores": cores, **params})
    if system is None:
        # No system synthesized at this core count (a 16-core system would take Yosys
        # hours): its cores and its network, each synthesized, summed. At 4 cores the
        # sum is 0.4% above the synthesized system (docs/synthesis.md).
        core = _synth_block(synth, "core", params)
        if core is not None and icrn is not None and grank is not None:
            system = cores * core + icrn + grank
    b32, bd = _synth_block(synth, "bank", {"Depth": 32}), _synth_block(synth, "bank", {"Depth": depth})
    if system is None or b32 is None or bd is None:
        return "not synthesized"
    return (system - cores * lanes * (b32 - bd)) / 1e6


def _area_column(study, rs, root):
    spec = study["area"]
    if spec.get("of") != "hwwl":
        raise SystemExit(f"study {study['name']}: area: only 'of: hwwl' is known")
    with open(os.path.join(root, "synth", "results.json")) as f:
        synth = json.load(f)
    grid = study.get("grid") or {}
    for r in rs:
        values = {k: r[k] if isinstance(grid[k], dict) else number(r[k]) for k in grid}
        _, _, sets = settings(study, (study.get("cases") or {}).get(r.get("case")), values)
        r["area_mm2"] = hwwl_area(sets, spec, synth, aggregator_area(root))


_STAT_WORDS = {"mean": "mean", "geomean": "geometric mean", "median": "median", "q1": "first quartile",
               "q3": "third quartile", "min": "minimum", "max": "maximum", "argmax": "argmax"}


def summary_table(study, srows):
    """The page's lines for a study's summary (its rows from the CSV): a line saying what was
    taken over what, and the table; beside each column that the paper's values give, the
    paper's value (column paper_<col>) of the paper row with the same `by` values."""
    spec = study["summary"]
    by, cols = list(spec.get("by") or []), summary_columns(study)
    values = (study.get("paper") or {}).get("values") or []
    shown_cols = list(by)
    for c in cols:
        shown_cols.append(c)
        if any(c in p for p in values):
            shown_cols.append("paper_" + c)
            for r in srows:
                match = next((p for p in values if c in p and all(b in p and same_value(r.get(b, ""), p[b])
                                                                  for b in by)), None)
                r["paper_" + c] = fmt_value(match[c]) if match is not None else ""
    stats = ", ".join(_STAT_WORDS[st] for st in spec["stats"])
    text = (f"Summary ({stats} of " + ", ".join(f"`{o}`" for o in spec["of"]) + " over " +
            ("the rows of each " + ", ".join(f"`{b}`" for b in by) if by else "all rows") +
            "; rows without a value left out")
    if "argmax" in spec["stats"]:
        text += f"; `_argmax`: the `{summary_label(study)}` of the row with the largest value"
    if any(st in spec["stats"] for st in ("q1", "q3")):
        text += "; quartiles by nearest rank"
    if spec.get("relative"):
        r_ = spec["relative"]
        others = [b for b in by if b != "case"]
        best = f"the smallest `{r_['of']}` of the cases " + ", ".join(f"`{c}`" for c in r_["to"])
        at = (" with the same " + ", ".join(f"`{c}`" for c in others)) if others else ""
        text += (f"; `{r_['name']}` = this row's `{r_['of']}` over {best}{at}" if r_.get("invert") else
                 f"; `{r_['name']}` = {best}{at}, over this row's `{r_['of']}`")
    if any(c.startswith("paper_") for c in shown_cols):
        text += f"; `paper_`: {(study.get('paper') or {}).get('source') or 'the paper'}"
    return [text + "):", "", table(srows, shown_cols), ""]


def page(exp, name, csv_path, page_path, plot_dir, root):
    all_rows = read_csv(csv_path)
    rel = os.path.relpath(plot_dir, os.path.dirname(page_path))
    out = [f"# {exp.get('title', name)}", "",
           f"Generated by `tools/experiment.sh {name}` from `experiments/{name}.yaml`; do not edit by hand.",
           f"Data: `{os.path.relpath(csv_path, root)}` (regenerated with the page).", ""]
    if exp.get("intro"):
        out += [exp["intro"].strip(), ""]
    for s in exp["studies"]:
        rs = [r for r in all_rows if r["study"] == s["name"] and str(r.get("sample", "")) == ""
              and str(r.get("summary", "")) == ""]
        cols = (["case"] if s.get("cases") else []) + list((s.get("grid") or {}).keys()) + \
            (["seed"] if len(s.get("seeds", [1])) > 1 else []) + list(s["metrics"].keys()) + \
            ([s["relative"]["name"]] if s.get("relative") else []) + \
            [c + sfx for c in (s.get("samples") or {}).get("y", {}) for sfx in ("_mean", "_max")]
        if s.get("area"):
            _area_column(s, rs, root)
            cols.append("area_mm2")
        out += [f"## {s.get('title', s['name'])}", "",
                f"`fgsim run {s.get('workload', '<workload>')} --preset {s.get('preset', '<preset>')}`" +
                "".join(f" `--set {k}={fmt_value(v)}`" for k, v in (s.get("fixed") or {}).items()) +
                (", swept over " + ", ".join(f"`{k}`" for k in (s.get("grid") or {})) if s.get("grid") else ""),
                ""]
        if s.get("cases"):
            out += ["| case | settings |", "|---|---|"] + [
                f"| {c} | " + " ".join(f"`{k}={fmt_value(v)}`" for k, v in (cs or {}).items()) + " |"
                for c, cs in s["cases"].items()] + [""]
        for k, bundles in (s.get("grid") or {}).items():
            if isinstance(bundles, dict):
                out += [f"| {k} | settings |", "|---|---|"] + [
                    f"| {b} | " + " ".join(f"`{n}={fmt_value(v)}`" for n, v in (bs or {}).items()) + " |"
                    for b, bs in bundles.items()] + [""]
        if s.get("relative"):
            r_ = s["relative"]
            best = f"the smallest `{r_['of']}` of the cases " + ", ".join(f"`{c}`" for c in r_["to"])
            at = (" at the same point" if r_.get("by") is None else
                  (" with the same " + ", ".join(f"`{c}`" for c in r_["by"])) if r_["by"] else " over the whole study")
            out += [(f"`{r_['name']}` = this row's `{r_['of']}` over {best}{at} (above 1: slower than the best)."
                     if r_.get("invert") else
                     f"`{r_['name']}` = {best}{at}, over this row's `{r_['of']}`."), ""]
        if s.get("samples"):
            sp = s["samples"]
            out += ["Sampled over time: " + ", ".join(f"`{c}` (`{st}`" + (f" as % of `{sp['percent_of']}`"
                                                                          if sp.get("percent_of") else "") + ")"
                                                     for c, st in sp["y"].items()) +
                    f"; the table gives each run's mean (`_mean`) and maximum (`_max`) over its samples, the plot "
                    f"the samples against `{sp['x']}`.", ""]
        if s.get("area"):
            part = s["area"].get("part", "unit")
            sets = [c or {} for c in (s.get("cases") or {}).values()] + [s.get("fixed") or {}] + \
                [{k: x} for k, vs in (s.get("grid") or {}).items() for x in (vs if isinstance(vs, list) else [])]
            channels = any(str(v) == "channels" for c in sets for k, v in c.items() if k.endswith(".mechanism"))
            out += ["`area_mm2` = the synthesized area (synth/results.json, OSU 0.18 um; docs/synthesis.md) of " +
                    ("the worklist unit this case configures: the system at 32 entries per bank (at core counts "
                     "without a synthesized system, its synthesized cores and network summed, and for gsorting its "
                     "global ranking), its banks replaced by the synthesized banks of the case's depth"
                     if part == "unit" else
                     "the redistribution hardware this case configures: a WRU per core and the inter-core network, "
                     "and for gsorting its global ranking of every bank (infinite banks have no area)") +
                    ("; for channels, the aggregator, estimated from a published area of a core of its class "
                     "(a 2-wide out-of-order low-power core: AMD Jaguar, 3.1 mm^2 at 28 nm, scaled by (180/28)^2; "
                     "synth/estimates.json): an estimate, not a synthesis" if channels else "") +
                    "; 0 for software; `model only` for schemes with no RTL; `not synthesized` where the synthesis "
                    "sweep has no such block.", ""]
        if s.get("table", True):
            out += [table(rs, cols), ""]
        else:
            out += [f"Its {len(rs)} rows are in the CSV; the summary:", ""]
        if s.get("summary"):
            out += summary_table(s, [r for r in all_rows if r["study"] == s["name"] and str(r.get("summary", "")) != ""])
        if s.get("plot"):
            out += [f"![{s['name']}]({rel}/{s['name']}.svg)", ""]
        if s.get("paper"):
            p = s["paper"]
            out += [f"Paper ({p.get('source', 'paper')}):", "", table(p.get("values", []), list(p["values"][0].keys()))
                    if p.get("values") else "", ""]
        if s.get("text"):
            out += [s["text"].strip(), ""]
    os.makedirs(os.path.dirname(page_path) or ".", exist_ok=True)
    with open(page_path, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
