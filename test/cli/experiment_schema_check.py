#!/usr/bin/env python3
"""The experiment schema and `numaplace sim --config` agree: every good file validates and is
accepted; every bad file fails the schema and is refused (exit 2) with its .expected message."""
import glob, json, os, subprocess, sys

import jsonschema

cli, schema_path, data = sys.argv[1], sys.argv[2], sys.argv[3]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
# The schemas beside it (topology.schema.json, which a machine's inline topology refers to), by $id.
store = {}
for other in glob.glob(os.path.join(os.path.dirname(schema_path), "*.schema.json")):
    doc = json.load(open(other))
    jsonschema.Draft202012Validator.check_schema(doc)
    store[doc["$id"]] = doc
validator = jsonschema.Draft202012Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))
failures = []

good = sorted(glob.glob(os.path.join(data, "good", "*.json")))
for path in good:
    errors = [e.message for e in validator.iter_errors(json.load(open(path)))]
    if errors:
        failures.append(f"{path}: the schema rejects a good file: {errors[0]}")
    run = subprocess.run([cli, "sim", "--config", path, "--runs", "1", "--threads", "2"], capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"{path}: the reader rejects a good file (exit {run.returncode}): {run.stderr.strip()}")

# '-' reads the experiment from standard input.
if good:
    run = subprocess.run([cli, "sim", "--config", "-", "--runs", "1", "--json"], input=open(good[0]).read(),
                         capture_output=True, text=True)
    if run.returncode != 0 or json.loads(run.stdout or "{}").get("format") != "numaplace-sim-report":
        failures.append(f"--config - with {good[0]} on stdin: exit {run.returncode}: {run.stderr.strip()}")
    run = subprocess.run([cli, "sim", "--config", "-"], input="{", capture_output=True, text=True)
    if run.returncode != 2 or not run.stderr.startswith("numaplace: error: <stdin>:1:"):
        failures.append(f"--config - with a broken file: exit {run.returncode}: {run.stderr.strip()}")

bad = sorted(glob.glob(os.path.join(data, "bad", "*.json")))
def unique_keys(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise json.JSONDecodeError("a key given twice", "", 0)
    return dict(pairs)


for path in bad:
    try:
        doc = json.load(open(path), object_pairs_hook=unique_keys)
        if validator.is_valid(doc):
            failures.append(f"{path}: the schema accepts a bad file")
    except json.JSONDecodeError:
        pass  # not JSON, or a key given twice: no schema can accept it
    expected = open(path[: -len(".json")] + ".expected").read().strip().replace("FILE", path, 1)
    run = subprocess.run([cli, "sim", "--config", path], capture_output=True, text=True)
    message = run.stderr.strip().removeprefix("numaplace: error: ")
    if run.returncode != 2:
        failures.append(f"{path}: exit {run.returncode}, expected 2")
    if not message.startswith(expected):
        failures.append(f"{path}: message\n  {message}\nexpected it to start with\n  {expected}")

# What JSON Schema cannot say (a generator spec's grammar, a distance row's length), only the
# reader checks: these files pass the schema, and the reader must still refuse them.
reader_only = sorted(glob.glob(os.path.join(data, "reader-only", "*.json")))
for path in reader_only:
    if not validator.is_valid(json.load(open(path))):
        failures.append(f"{path}: the schema rejects it; move it to bad/")
    expected = open(path[: -len(".json")] + ".expected").read().strip().replace("FILE", path, 1)
    run = subprocess.run([cli, "sim", "--config", path], capture_output=True, text=True)
    message = run.stderr.strip().removeprefix("numaplace: error: ")
    if run.returncode != 2 or not message.startswith(expected):
        failures.append(f"{path}: exit {run.returncode}, message\n  {message}\nexpected exit 2 and\n  {expected}")

if not good or not bad or not reader_only:
    failures.append(f"no files under {data}/good or {data}/bad")
for f in failures:
    print(f, file=sys.stderr)
print(f"{len(good)} good, {len(bad)} bad and {len(reader_only)} reader-only bad experiment files checked; "
      f"{len(failures)} problems")
sys.exit(1 if failures else 0)
