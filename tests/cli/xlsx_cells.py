#!/usr/bin/env python3
"""Prints every cell of an .xlsx workbook, one per line: SHEET<TAB>REF<TAB>FORMULA<TAB>VALUE.

An .xlsx file is a zip of XML (ECMA-376 Part 1, SpreadsheetML): xl/workbook.xml names the
sheets, xl/_rels/workbook.xml.rels maps them to xl/worksheets/*.xml, strings live in
xl/sharedStrings.xml. FORMULA is the cell's formula without '=' ("" for none), VALUE the stored
value (the shared string for a string cell). Tabs and line breaks inside strings become spaces.
Used by the tests to read back `flopcast quote --format xlsx` with nothing but Python's zipfile.
"""
import sys
import xml.etree.ElementTree as ET
import zipfile

M = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PR = "{http://schemas.openxmlformats.org/package/2006/relationships}"


def clean(s):
    return s.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def main(path):
    z = zipfile.ZipFile(path)
    strings = []
    if "xl/sharedStrings.xml" in z.namelist():
        for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall(M + "si"):
            strings.append("".join(t.text or "" for t in si.iter(M + "t")))
    rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels")).iter(PR + "Relationship")}
    for sheet in ET.fromstring(z.read("xl/workbook.xml")).iter(M + "sheet"):
        target = rels[sheet.get(R + "id")].lstrip("/")
        if not target.startswith("xl/"):
            target = "xl/" + target
        for c in ET.fromstring(z.read(target)).iter(M + "c"):
            f = c.find(M + "f")
            v = c.find(M + "v")
            value = v.text if v is not None and v.text is not None else ""
            if c.get("t") == "s" and value:
                value = strings[int(value)]
            formula = f.text if f is not None and f.text else ""
            print("\t".join([clean(sheet.get("name")), c.get("r"), clean(formula.lstrip("=")), clean(value)]))


if __name__ == "__main__":
    main(sys.argv[1])
