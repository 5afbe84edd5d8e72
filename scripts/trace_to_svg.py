#!/usr/bin/env python3
"""Renders a Chrome trace-event JSON written by `flopcast simulate --trace` as an SVG picture in
the style of Perfetto's timeline (one row per process/thread track, one box per "X" slice,
coloured by category). For the README; open the JSON itself in ui.perfetto.dev to explore it.

usage: scripts/trace_to_svg.py TRACE.json OUT.svg [--width 1400] [--max-stages N]
"""
import argparse
import html
import json

COLORS = {
    "compute": "#4e79a7", "recompute": "#a0cbe8", "tp_comm": "#f28e2b", "cp_comm": "#ffbe7d",
    "ep_comm": "#59a14f", "pp_comm": "#8cd17d", "dp_comm": "#e15759", "optimizer": "#b07aa1",
    "overhead": "#9d7660",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--max-stages", type=int, default=8)
    a = ap.parse_args()
    doc = json.load(open(a.trace))
    ev = doc["traceEvents"]
    pname, tname = {}, {}
    for e in ev:
        if e["ph"] == "M" and e["name"] == "process_name":
            pname[e["pid"]] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
    xs = [e for e in ev if e["ph"] == "X"]
    pids = sorted({e["pid"] for e in xs})
    if len(pids) > a.max_stages:  # first and last stages, to keep the picture readable
        keep = pids[: a.max_stages // 2] + pids[-(a.max_stages - a.max_stages // 2):]
        pids = keep
    tracks = sorted({(e["pid"], e["tid"]) for e in xs if e["pid"] in pids})
    t_end = max(e["ts"] + e["dur"] for e in xs)
    left, top, row, gap = 170, 40, 18, 6
    scale = (a.width - left - 20) / t_end
    height = top + len(tracks) * row + len({p for p, _ in tracks}) * gap + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{a.width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{a.width}" height="{height}" fill="white"/>']
    title = doc.get("otherData", {}).get("title", "")
    step = doc.get("otherData", {}).get("step_time_s", t_end / 1e6)
    out.append(f'<text x="10" y="18" font-size="13" font-weight="bold">{html.escape(title)}: one step, {step:.3f} s</text>')
    y = top
    last_pid = None
    for (pid, tid) in tracks:
        if last_pid is not None and pid != last_pid:
            y += gap
        last_pid = pid
        label = f"{pname.get(pid, pid)} / {tname.get((pid, tid), tid)}"
        out.append(f'<text x="8" y="{y + row - 5}">{html.escape(label)}</text>')
        out.append(f'<line x1="{left}" y1="{y + row}" x2="{a.width - 20}" y2="{y + row}" stroke="#eee"/>')
        for e in xs:
            if e["pid"] != pid or e["tid"] != tid:
                continue
            x = left + e["ts"] * scale
            w = max(0.6, e["dur"] * scale)
            c = COLORS.get(e.get("cat", ""), "#999")
            out.append(f'<rect x="{x:.2f}" y="{y + 2}" width="{w:.2f}" height="{row - 4}" fill="{c}" stroke="white" stroke-width="0.3">'
                       f'<title>{html.escape(e["name"])}</title></rect>')
            if w > 34:
                out.append(f'<text x="{x + 2:.2f}" y="{y + row - 6}" fill="white" font-size="9">{html.escape(e["name"])}</text>')
        y += row
    # time axis and legend
    for i in range(11):
        t = t_end * i / 10
        x = left + t * scale
        out.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{y}" stroke="#ddd" stroke-width="0.5"/>')
        out.append(f'<text x="{x:.1f}" y="{top - 8}" text-anchor="middle" font-size="9">{t / 1e6:.2f} s</text>')
    lx = left
    for k, c in COLORS.items():
        out.append(f'<rect x="{lx}" y="{y + 14}" width="10" height="10" fill="{c}"/><text x="{lx + 14}" y="{y + 23}">{k}</text>')
        lx += 95
    out.append("</svg>")
    open(a.out, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
