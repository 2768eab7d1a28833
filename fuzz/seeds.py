#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus, fuzz/seeds/TARGET/, from tests/fixtures and tests/golden.

Each target starts from the real files of its format and from pieces of them (a trace's first
lines, each recorded payload, each SSE body), so the fuzzer begins where real input is.
Run from anywhere; `.ci/fuzz` runs it before fuzzing. Only the standard library is used.
"""

import hashlib
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
GOLDEN = ROOT / "tests" / "golden"
OUT = ROOT / "fuzz" / "seeds"
# lines and sse read their first 8 bytes as chunk sizes (fuzz/src/lib.rs `chunks`).
CHUNK_PREFIXES = [b"\x00\x00\x00\x00\x00\x00\x00\x00", b"\x07\x01\x3f\x02\x10\x05\x00\x21"]


def files(*dirs):
    return sorted(p for d in dirs for p in d.rglob("*") if p.is_file())


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def traces():
    return files(FIXTURES / "narration")


def trace_events(path):
    for line in path.read_text().splitlines()[1:]:
        yield json.loads(line)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    every = files(FIXTURES, GOLDEN)

    for path in every:
        for prefix in CHUNK_PREFIXES:
            put("lines", prefix + path.read_bytes())

    for path in traces():
        text = path.read_text()
        put("trace_file", text)
        lines = text.splitlines(keepends=True)
        put("trace_file", "".join(lines[:8]))
        # A truncated last line and a line that is not an event.
        put("trace_file", "".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
        put("trace_file", "".join(lines[:4]) + "{garbage\n" + "".join(lines[4:8]))
        for event in trace_events(path):
            if "raw" in event:
                put("jsonrpc", event["raw"])

    sse_bodies = []
    for path in files(FIXTURES / "import"):
        data = path.read_bytes()
        if path.suffix == ".log":
            put("import_claude_desktop", data)
            put("import_claude_desktop", b"".join(data.splitlines(keepends=True)[:6]))
        elif path.suffix == ".har":
            put("import_har", data)
            har = json.loads(data)
            for entry in har["log"]["entries"]:
                body = entry.get("request", {}).get("postData", {}).get("text")
                if body:
                    put("jsonrpc", body)
                content = entry.get("response", {}).get("content", {})
                if "event-stream" in content.get("mimeType", "") and content.get("text"):
                    sse_bodies.append(content["text"].encode())
        elif path.suffix == ".json":
            put("import_inspector", data)
            entries = json.loads(data)
            # The JSON Lines form `inspector --cli --method logging/tail` prints.
            put("import_inspector", "\n".join(json.dumps(e) for e in entries) + "\n")
            for entry in entries:
                if isinstance(entry, dict) and isinstance(entry.get("message"), dict):
                    put("jsonrpc", json.dumps(entry["message"]))

    for body in sse_bodies:
        variants = [body, body.replace(b"\n", b"\r\n"), body.replace(b"\n", b"\r"), b"\xef\xbb\xbf" + body]
        for variant in variants:
            for prefix in CHUNK_PREFIXES:
                put("sse", prefix + variant)

    # The Markdown handout's escaping: the shipped handouts and recorded payloads (tool
    # names, stderr lines) are what it escapes.
    for path in files(ROOT / "docs" / "handouts"):
        if path.suffix == ".md":
            put("markdown_escape", path.read_bytes())
    for path in traces():
        for event in trace_events(path):
            if "raw" in event:
                put("markdown_escape", event["raw"])

    for path in files(FIXTURES / "wrap"):
        put("wrap_config", path.read_bytes())
    for path in files(GOLDEN):
        if path.suffix == ".json":
            put("wrap_config", path.read_bytes())

    # What reaches the listeners' gate: Host values, query strings, Last-Event-IDs.
    for text in ["127.0.0.1:6300", "localhost", "[::1]:6300", "evil.example:80",
                 "127.0.0.1.evil.example", "a=1&token=0123456789abcdef", "token=", "41",
                 "18446744073709551615", "[::1]", "[fe80::1%25eth0]:1"]:
        put("gate", text.encode())

    # Past crashes (tests/fixtures/fuzz/TARGET-what.ext, each guarded by a regression test) seed
    # their target again.
    for path in files(FIXTURES / "fuzz"):
        put(path.name.split("-", 1)[0], path.read_bytes())

    for target in sorted(p.name for p in OUT.iterdir()):
        print(f"seeds: {target}: {len(list((OUT / target).iterdir()))}")


if __name__ == "__main__":
    main()
