"""Paths and readers the tests share.

The tests run against whatever ``import loopcompact`` finds: the installed wheel under
scripts/test-python (which sets ``LOOPCOMPACT_TEST_INSTALLED=1`` and checks that it is so), or the
source tree with ``PYTHONPATH=bindings/python/src`` and ``LOOPCOMPACT_LIB``. The repository (for
the header, Cargo.toml and the vectors) is ``$LOOPCOMPACT_REPO``, by default three levels up.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Tuple

REPO = Path(os.environ.get("LOOPCOMPACT_REPO") or Path(__file__).resolve().parents[3])
PROJECT = REPO / "bindings" / "python"
HEADER = REPO / "include" / "loopcompact.h"
VECTORS = REPO / "tests" / "vectors"
EXAMPLES = REPO / "examples" / "data"
PEER = REPO.parent / "shared" / "vectors" / "peer_jsontestsuite.jsonl"
INSTALLED = os.environ.get("LOOPCOMPACT_TEST_INSTALLED") == "1"
CI = os.environ.get("CI") == "true"

Row = Dict[str, Any]


def load_rows(path: Path) -> List[Row]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def first_row(file: str, **match: Any) -> Row:
    return next(r for r in load_rows(VECTORS / file) if all(r.get(k) == v for k, v in match.items()))


def backend() -> ModuleType:
    """The build backend (build_backend/loopcompact_build.py), loaded from its file."""
    path = PROJECT / "build_backend" / "loopcompact_build.py"
    spec = importlib.util.spec_from_file_location("loopcompact_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def header_text() -> str:
    # Comments out: doc comments quote code (`lc_status_reason`, `{...}`) that must not match.
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", HEADER.read_text("utf-8"), flags=re.S)


def header_typedefs(text: str) -> Dict[str, str]:
    return {alias: base for base, alias in re.findall(r"typedef\s+(\w+)\s+(\w+)\s*;", text)}


def header_structs(text: str) -> Dict[str, List[Tuple[str, str]]]:
    """``typedef struct NAME { TYPE FIELD; ... } NAME;`` -> {NAME: [(FIELD, TYPE), ...]}; an array
    field ``char x[N]`` has the type ``char[N]``."""
    structs = {}
    for name, body in re.findall(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*\1\s*;", text, flags=re.S):
        fields = []
        for decl in body.split(";"):
            m = re.fullmatch(r"\s*(.*?)\s*\b(\w+)\s*(?:\[(\w+)\])?\s*", decl, flags=re.S)
            if m and m.group(2):
                ctype = " ".join(m.group(1).replace("*", " * ").split())
                fields.append((m.group(2), f"{ctype}[{m.group(3)}]" if m.group(3) else ctype))
        structs[name] = fields
    return structs


def header_prototypes(text: str) -> Dict[str, Tuple[str, List[str]]]:
    """Every ``RET lc_NAME(PARAMS);`` -> {name: (ret, [param types])}, types as written."""
    prototypes = {}
    pattern = r"^\s*((?:const\s+)?(?:struct\s+)?\w+[\s*]*?)\s*\b(lc_\w+)\s*\(([^)]*)\)\s*;"
    for ret, name, params in re.findall(pattern, text, flags=re.M):
        types = []
        if params.strip() != "void":
            for param in params.split(","):
                m = re.match(r"^(.*?)\s*\b\w+\s*$", param.strip())
                assert m is not None, param
                types.append(" ".join(m.group(1).replace("*", " * ").split()))
        prototypes[name] = (" ".join(ret.replace("*", " * ").split()), types)
    return prototypes


def header_defines() -> Dict[str, str]:
    return dict(re.findall(r"^#define[ \t]+(\w+)[ \t]+([^\n]+?)[ \t]*$", HEADER.read_text("utf-8"), flags=re.M))


class Stub:
    """An HTTP server on 127.0.0.1 (an ephemeral port) that answers each POST with the next canned
    JSON body and records the path and decoded body of every request. The model clients are
    pointed at it (``base_url``): the tests never reach the network."""

    def __init__(self, answers: List[Dict[str, Any]]) -> None:
        self.answers = list(answers)
        self.received: List[Tuple[str, Dict[str, Any]]] = []
        #: The request bodies as they arrived (bytes), in order.
        self.raw: List[bytes] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server protocol
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                stub.raw.append(raw)
                stub.received.append((self.path, json.loads(raw)))
                # Out of answers: an overloaded server (HTTP 500).
                status, answer = (200, stub.answers.pop(0)) if stub.answers else (500, OVERLOADED)
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> "Stub":
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


OVERLOADED = {"type": "error", "error": {"type": "api_error", "message": "overloaded"}}
