"""src/lsvi/papers/COVERAGE.md, the item-by-item coverage of the five papers, against the committed cpu report: every
row it cites exists in results/cpu/claims.csv with the status it shows, and its counts add up. A status that changes
in the report makes this test fail until the page is recounted."""
from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "src" / "lsvi" / "papers" / "COVERAGE.md"
STATUSES = ("PASS", "FAIL", "NOT ASSESSABLE")
ITEM = re.compile(r"^\| (\d+) \| .* \| \*\*(COVERED|PARTIAL|MISSING)\*\* \| (.*) \| (.*) \|$")
# "12: thm34-conditional-bound (PASS)" or, after a notebook number in the same cell, "bound-holds-a2 (PASS)"
CITE = re.compile(r"(?:\b(\d{2}): )?`?([A-Za-z][\w.\-]*)`? \((PASS|FAIL|NOT ASSESSABLE)\b")


def sections(text: str) -> list[tuple[str, list[re.Match], tuple[int, ...]]]:
    """(heading, item lines, stated counts (covered, partial, missing, of)) per document section."""
    out = []
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        heading = part.split("\n", 1)[0]
        items = [m for m in map(ITEM.match, part.split("\n")) if m]
        (stated,) = re.findall(r"^counts: covered (\d+), partial (\d+), missing (\d+) \(of (\d+)\)", part, re.M)
        out.append((heading, items, tuple(map(int, stated))))
    return out


def test_every_cited_row_is_in_the_committed_cpu_report_with_that_status():
    with open(ROOT / "results" / "cpu" / "claims.csv", newline="") as fh:
        report = {(r["notebook"][:2], r["id"]): r["status"] for r in csv.DictReader(fh)}
    cited, wrong = 0, []
    for heading, items, _ in sections(PAGE.read_text()):
        for m in items:
            notebook = None
            for nb, rid, status in CITE.findall(m.group(3)):
                notebook = nb or notebook
                assert notebook, f"{heading} item {m.group(1)}: {rid} cited before any notebook number"
                cited += 1
                if report.get((notebook, rid)) != status:
                    wrong.append(f"{heading} item {m.group(1)}: {notebook}: {rid} ({status}), report: "
                                 f"{report.get((notebook, rid), 'no such row')}")
    assert cited > 400
    assert not wrong, "recount these items in src/lsvi/papers/COVERAGE.md:\n" + "\n".join(wrong)


def test_counts_add_up_to_the_226_items():
    text = PAGE.read_text()
    totals = Counter()
    for heading, items, stated in sections(text):
        numbers = [int(m.group(1)) for m in items]
        assert numbers == list(range(1, len(numbers) + 1)), heading
        c = Counter(m.group(2) for m in items)
        assert (c["COVERED"], c["PARTIAL"], c["MISSING"], len(items)) == stated, heading
        totals.update(c)
        # an item is COVERED only if one of its rows is assessed at cpu
        for m in items:
            table3 = heading.startswith("1. LSVI paper") and m.group(1) == "48"  # a configuration table: nothing to claim
            if m.group(2) == "COVERED" and not table3:
                statuses = {s for *_, s in CITE.findall(m.group(3))}
                assert statuses & {"PASS", "FAIL"}, f"{heading} item {m.group(1)} COVERED without an assessed row"
    row = re.search(r"^\| \*\*all five\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \|", text, re.M)
    assert tuple(map(int, row.groups())) == (226, totals["COVERED"], totals["PARTIAL"], totals["MISSING"])
