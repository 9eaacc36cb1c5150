#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fuzzer of the experiment-file check (tools/experiments/check.py), the one reader of an
experiment file before any run: mutations of the committed experiments/*.yaml and of the seed
corpus tests/fuzz/corpus/experiment, each checked in process against the catalog of a real fgsim
(`fgsim params --json`, `fgsim list`; without one, what check.py checks without fgsim).

Properties, for every input: check() returns a Result or raises check.Problem, nothing else (any
other exception, a RecursionError or a MemoryError included, is a finding); a Problem is one line
of printable text of at most 4096 characters, `FILE:LINE: ...` or `FILE: ...`, its line within
the file; an input takes at most 2 s and the process at most 1 GiB; an accepted file's points
enumerate (experiment.points) with settings that are fgsim parameters.

Mutations: of the text (lines deleted, duplicated, swapped, re-indented, truncated, bytes
flipped, YAML tokens inserted: anchors, aliases, tags, flow brackets, tabs, NUL, bytes that are
not UTF-8) and of the structure (a value replaced by a tricky one: huge and negative numbers,
NaN, empty and 5,000-character strings, lists, mappings, placeholders, metric expressions; a key
deleted, misspelt, or added from the keys the workflow knows; a setting of a real parameter at
and past its range; another workload), and splices of two inputs. Feedback without
instrumentation: an input whose outcome is new (the message with its values taken out) joins the
campaign's corpus (OUT/corpus-experiment), so mutations work their way into later checks.

    experiment_fuzz.py [--fgsim PATH] [--seconds N] [--seed S] [--out DIR]

A finding is written to OUT/experiment-<hash>.yaml with its traceback in .txt, and the exit code
is 1 (tools/fuzz.sh experiment runs it; make fuzz, CI).
"""
import glob
import hashlib
import itertools
import math
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
import traceback

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "experiments"))
import check as C  # noqa: E402
import experiment as X  # noqa: E402

TOKENS = [": ", "- ", "{", "}", "[", "]", ",", "&a ", "*a", "<<: *a\n", "!!str ", "!!python/name:os.system ",
          "? ", "|\n", ">\n", "'", '"', "\t", "#", "---\n", "...\n", "%YAML 1.1\n", "\x00", "\x07", "\u202e",
          "é", "{workload}", "{other}", "*", "/", "(", ")", "**", "1e308", "-", "0x10", "~", "null", ".nan"]
TRICKY = [0, -1, 1, 2 ** 63, 2 ** 64, -(2 ** 63) - 1, 10 ** 400, 1e308, -0.0, float("nan"), float("inf"), "",
          "x" * 5000, None, True, False, [], {}, [[]], {"a": {"b": {"c": {}}}}, "{workload}", "{workload}.n",
          "gpu.cus", "stats.*", "stats.gpu.cu*.l1.hits", "result.kernel_ns / 0", "1 +", "sim.time_ns ** 99",
          "(" * 200 + "1" + ")" * 200, "config.gpu.cus", "host.wall_seconds", "é\u202e", "\x00", "a\nb", "1K",
          "1T", "0x10", "-0", "+5", "1e-300", "yes", "off", "~"]


class Slow(Exception):
    pass


def on_alarm(signum, frame):
    raise Slow("an input took more than 2 s")


def mutate_text(rng, text, corpus):
    lines = text.split("\n")
    op = rng.randrange(9)
    if op == 0 and lines:
        del lines[rng.randrange(len(lines))]
    elif op == 1 and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif op == 2 and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 3 and lines:
        i = rng.randrange(len(lines))
        lines[i] = " " * rng.choice([0, 1, 2, 3, 4, 8]) + lines[i].lstrip()
    elif op == 4:
        return text[:rng.randrange(len(text) + 1)]
    elif op == 5 and text:
        b = bytearray(text.encode("utf-8", "surrogatepass"))
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        return b.decode("utf-8", "surrogateescape")
    elif op == 6:
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(TOKENS) + text[at:]
    elif op == 7:
        other = rng.choice(corpus).split("\n")
        cut, cut2 = rng.randrange(len(lines) + 1), rng.randrange(len(other) + 1)
        lines = lines[:cut] + other[cut2:]
    else:
        at = rng.randrange(len(text) + 1)
        return text[:at] + "\udcff" + text[at:]  # a byte that is not UTF-8 (written as 0xff)
    return "\n".join(lines)


def nodes(x, path=()):
    yield path, x
    if isinstance(x, dict):
        for k, v in list(x.items()):
            yield from nodes(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from nodes(v, path + (i,))


def edge_value(rng, p):
    if p.get("choices"):
        return rng.choice(p["choices"] + ["no-such-choice"])
    lo, hi = p.get("min"), p.get("max")
    pick = [v for v in (lo, hi) if v is not None]
    if not pick:
        return rng.choice(TRICKY)
    v = rng.choice(pick)
    v = v + rng.choice([-1, 0, 1]) * max(1, abs(v) * 1e-9)
    return int(v) if p["type"] in ("uint", "int") and math.isfinite(v) else v


def mutate_tree(rng, doc, cat):
    spots = list(itertools.islice(nodes(doc), 5000))  # aliases may repeat a part: a bounded walk
    path, _ = rng.choice(spots)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    op = rng.randrange(7)
    if not path:
        return rng.choice(TRICKY) if op == 0 else doc
    key = path[-1]
    if op <= 1:
        parent[key] = rng.choice(TRICKY)
    elif op == 2 and isinstance(parent, dict):
        del parent[key]
    elif op == 3 and isinstance(parent, dict) and isinstance(key, str) and key:
        i = rng.randrange(len(key))
        parent[key[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz._{}") + key[i + 1:]] = parent.pop(key)
    elif op == 4 and isinstance(parent, dict):
        known = C.TOP_KEYS + C.STUDY_KEYS + C.PLOT_KEYS + C.RELATIVE_KEYS + C.SUMMARY_KEYS + C.AREA_KEYS
        parent[rng.choice(known)] = rng.choice(TRICKY)
    elif op == 5 and cat is not None:
        p = cat.params[rng.choice(sorted(cat.params))]
        target = parent if isinstance(parent, dict) else doc
        sub = target.setdefault(rng.choice(["fixed", "grid"]), {}) if isinstance(target, dict) else {}
        if isinstance(sub, dict):
            v = edge_value(rng, p)
            sub[p["name"]] = [v] if rng.random() < 0.5 else v
    elif op == 6 and cat is not None and isinstance(parent, dict):
        parent["workload"] = rng.choice(sorted(cat.workloads) + ["no-such-workload"])
    return doc


def mutate(rng, text, corpus, cat):
    if rng.random() < 0.5:
        try:
            doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except Exception:
            doc = None
        if isinstance(doc, (dict, list)):
            for _ in range(rng.randint(1, 3)):
                doc = mutate_tree(rng, doc, cat)
            try:
                return yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), allow_unicode=True,
                                 sort_keys=False, width=200)
            except Exception:
                pass
    for _ in range(rng.randint(1, 4)):
        text = mutate_text(rng, text, corpus)
    return text


def outcome(message):
    """A message with its values taken out: what kind of check said it."""
    m = re.sub(r"'[^']*'", "'_'", message.split(": ", 2)[-1])
    return re.sub(r"\d+(\.\d+)?", "N", m)[:120]


def check_one(path, text, cat):
    """None when the properties hold; else what was violated."""
    n_lines = text.count("\n") + 1
    signal.alarm(2)
    try:
        r = C.check(path, cat)
    except C.Problem as e:
        msg = str(e)
        if not isinstance(msg, str) or "\n" in msg or len(msg) > 4096 or not msg.isprintable():
            return f"not one printable line of at most 4096 characters: {msg!r:.400}", None
        m = re.match(re.escape(C.shown(path, 200)) + r"(?::(\d+))?: ", msg)
        if not m:
            return f"does not start with the file: {msg!r:.400}", None
        if m.group(1) and not 1 <= int(m.group(1)) <= n_lines + 1:
            return f"line {m.group(1)} is not in the file's {n_lines} lines: {msg!r:.400}", None
        return None, "problem: " + outcome(msg)
    except KeyboardInterrupt:
        raise
    except BaseException:  # Slow, RecursionError, MemoryError, a SystemExit that is not a Problem, ...
        return "exception: " + traceback.format_exc(limit=12), None
    finally:
        signal.alarm(0)
    try:
        for s in r.experiment["studies"]:
            for _params, _seed, args in X.points(s):
                for k in (args[i + 1].partition("=")[0] for i, a in enumerate(args) if a == "--set"):
                    if cat is not None and k not in cat.params:
                        return f"accepted a setting that is no parameter of fgsim: {k!r}", None
    except Exception:
        return "accepted, and experiment.points failed: " + traceback.format_exc(limit=12), None
    return None, "ok: " + ",".join(sorted(str(k) for k in r.experiment))


def main():
    args = sys.argv[1:]
    fgsim, seconds, seed = os.path.join(ROOT, "build", "fgsim"), 60.0, None
    out = os.environ.get("FG_FUZZ_DIR", os.path.join(ROOT, "build", "fuzz"))
    while args:
        a = args.pop(0)
        if a == "--fgsim":
            fgsim = args.pop(0)
        elif a == "--seconds":
            seconds = float(args.pop(0))
        elif a == "--seed":
            seed = int(args.pop(0))
        elif a == "--out":
            out = args.pop(0)
        else:
            print(f"experiment_fuzz.py: unknown argument {a!r} (see --help in the file's docstring)")
            return 2
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    sys.setrecursionlimit(10000)
    signal.signal(signal.SIGALRM, on_alarm)
    cat = C.catalog(fgsim) if os.path.exists(fgsim) else None
    if cat is None:
        print(f"experiment_fuzz.py: no fgsim at {fgsim}: parameters, workloads and presets are not checked")
    seed = seed if seed is not None else int(time.time())
    rng = random.Random(seed)
    os.makedirs(os.path.join(out, "corpus-experiment"), exist_ok=True)
    files = sorted(glob.glob(os.path.join(HERE, "corpus", "experiment", "*")) +
                   glob.glob(os.path.join(out, "corpus-experiment", "*")))
    corpus = [open(f, encoding="utf-8", errors="surrogateescape").read() for f in files]
    # The committed experiments one study at a time: every study's shape, in inputs small enough
    # to check quickly (the pure-Python YAML parser takes 0.1 s for a whole file).
    for f in sorted(glob.glob(os.path.join(ROOT, "experiments", "*.yaml"))):
        doc = yaml.load(open(f, encoding="utf-8").read(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        for study in doc.get("studies", []):
            corpus.append(yaml.safe_dump({"title": doc.get("title", "t"), "studies": [study]}, allow_unicode=True,
                                         sort_keys=False, width=200))
    seen, execs, t0 = set(), 0, time.time()
    work = tempfile.mkdtemp(prefix="fg-expfuzz-")
    path = os.path.join(work, "fuzz.yaml")
    print(f"== experiment: {seconds:.0f} s, seed {seed}, {len(corpus)} inputs in the corpus")
    pending = list(corpus)  # the corpus itself first, unchanged (as libFuzzer does)
    while time.time() - t0 < seconds:
        if pending:
            text = pending.pop()
        else:
            text = mutate(rng, rng.choices(corpus, weights=[1 / (1 + len(c) / 500) for c in corpus])[0], corpus,
                          cat)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        execs += 1
        bad, kind = check_one(path, text, cat)
        if bad:
            h = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
            base = os.path.join(out, f"experiment-{h}")
            with open(base + ".yaml", "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            with open(base + ".txt", "w") as f:
                f.write(bad + "\n")
            print(f"FINDING after {execs} inputs (seed {seed}): {bad.splitlines()[-1][:300]}\n  input: {base}.yaml")
            return 1
        if kind not in seen:
            seen.add(kind)
            corpus.append(text)
            h = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]
            with open(os.path.join(out, "corpus-experiment", h), "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(text)
    secs = time.time() - t0
    print(f"stat::number_of_executed_units: {execs}\nstat::average_exec_per_sec: {execs / secs:.0f}\n"
          f"stat::distinct_outcomes: {len(seen)}\nstat::corpus_size: {len(corpus)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
