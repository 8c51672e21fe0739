#!/usr/bin/env python3
"""Markdown summary of numaplace_bench's JSON (scripts/bench writes bench/results/summary.md).

Times are CPU time per decision in ns (Google Benchmark's cpu_time), which a busy shared
machine inflates less than wall time.
"""
import json
import sys


def main(path):
    with open(path) as f:
        data = json.load(f)
    ctx = data.get("context", {})
    times = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        times[b["name"]] = b["cpu_time"] * scale

    def t(name):
        return times.get(name)

    def fmt(v):
        if v is None:
            return "–"
        if v >= 100000:
            return f"{v / 1000:,.0f} µs"
        if v >= 1000:
            return f"{v:,.0f}"
        return f"{v:.1f}" if v < 100 else f"{v:.0f}"

    sizes = sorted({int(n.rsplit("/", 1)[1]) for n in times})
    stacks = []
    for n in times:
        if n.startswith("BM_stack/"):
            s = n.split("/")[1]
            if s not in stacks:
                stacks.append(s)
    kinds = ["direct", "glueless", "backplane"]

    out = []
    out.append("# numaplace_bench: ns per preferred-node decision")
    out.append("")
    out.append(f"`scripts/bench` on {ctx.get('host_name', '?')}, {ctx.get('num_cpus', '?')} CPUs at "
               f"{ctx.get('mhz_per_cpu', '?')} MHz, {ctx.get('date', '?')}; numaplace_bench at -O2 (Google Benchmark's own library reports "
               f"'{ctx.get('library_build_type', '?')}', as Debian builds it). CPU time per decision, ns. Inputs: {ctx.get('inputs', '?')}. "
               f"Skipped: {ctx.get('skipped', '?')}.")
    out.append("")
    out.append("## linux-modern against the baselines")
    out.append("")
    out.append("| kind | nodes | argmax | linux-modern | kernel-style | kernel-style / linux-modern |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for k in kinds:
        for n in (8, 64, 256, 1024):
            lm = t(f"BM_stack/linux-modern/{k}/{n}")
            ks = t(f"BM_kernel_style/{k}/{n}")
            am = t(f"BM_argmax/{n}")
            sp = f"{ks / lm:.1f}x" if lm and ks else "–"
            out.append(f"| {k} | {n} | {fmt(am)} | {fmt(lm)} | {fmt(ks)} | {sp} |")
    out.append("")
    out.append("argmax is the hand-written loop; it computes what linux-modern computes on a direct topology "
               "only (on other kinds it is shown for scale).")
    out.append("")
    out.append("## Every stack (ns per decision)")
    out.append("")
    out.append("| benchmark | " + " | ".join(str(n) for n in sizes) + " |")
    out.append("|---|" + "---:|" * len(sizes))
    out.append("| argmax | " + " | ".join(fmt(t(f"BM_argmax/{n}")) for n in sizes) + " |")
    for k in kinds:
        for s in stacks:
            out.append(f"| {s} / {k} | " + " | ".join(fmt(t(f"BM_stack/{s}/{k}/{n}")) for n in sizes) + " |")
        out.append(f"| **kernel-style** / {k} | " + " | ".join(fmt(t(f"BM_kernel_style/{k}/{n}")) for n in sizes) + " |")
    out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/latest.json")
